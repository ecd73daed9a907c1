import { AppError } from '@homeops/common';
import { applyPatch } from '../../src/adapters/storage/apply-patch.js';
import { NotificationIndex } from '../../src/adapters/storage/notification-index.js';
import { describeRecordProblem } from '../../src/adapters/storage/record-shape.js';
import { readSince, type Delivery, type NotificationPatch, type NotificationRecord } from '../../src/domain/notification.js';
import type { ListQuery, NotificationPage, NotificationRepository, RecipientSummary, StorageStats } from '../../src/domain/notification-repository.js';

/**
 * NotificationRepository without a disk, with the same indexes and semantics as the YAML one. Records every
 * mutating call in `calls`; `failWrites = true` makes writes reject with STORAGE_UNAVAILABLE like a full disk.
 */
export class InMemoryNotificationRepository implements NotificationRepository {
  readonly calls: string[] = [];
  failWrites = false;
  private readonly index = new NotificationIndex();
  private lastWriteAt: string | null = null;
  private lastError: string | null = null;

  constructor(initial: NotificationRecord[] = []) {
    for (const record of initial) this.index.put(record);
  }

  async open(): Promise<void> {}

  async close(): Promise<void> {}

  async insert(record: NotificationRecord): Promise<void> {
    this.write(`insert ${record.id}`);
    const problem = describeRecordProblem(record);
    if (problem !== undefined) throw new AppError('INTERNAL', `Refusing to store notification ${record.id}: ${problem}`);
    if (this.index.get(record.id) !== undefined) throw new AppError('NOTIFICATION_EXISTS', `Notification id ${record.id} already exists`);
    this.index.put(record);
  }

  async update(id: string, patch: NotificationPatch): Promise<NotificationRecord | undefined> {
    this.write(`update ${id}`);
    const current = this.index.get(id);
    if (current === undefined) return undefined;
    const next = applyPatch(current, patch);
    this.index.put(next);
    return next;
  }

  async claimAttempt(id: string, delivery: Delivery): Promise<NotificationRecord | undefined> {
    const current = this.index.get(id);
    if (current?.delivery.status !== 'pending' || current.delivery.attempts !== delivery.attempts - 1) return undefined;
    return this.update(id, { delivery });
  }

  async markAllRead(recipient: string, readAt: string): Promise<number> {
    this.write(`markAllRead ${recipient}`);
    const unread = this.index.unreadOf(recipient);
    for (const record of unread) this.index.put(applyPatch(record, readSince(readAt)));
    return unread.length;
  }

  async remove(id: string): Promise<NotificationRecord | undefined> {
    this.write(`remove ${id}`);
    const removed = this.index.get(id);
    this.index.delete(id);
    return removed;
  }

  async get(id: string): Promise<NotificationRecord | undefined> {
    return this.index.get(id);
  }

  async list(recipient: string, query: ListQuery): Promise<NotificationPage> {
    return this.index.list(recipient, query);
  }

  async recipients(): Promise<RecipientSummary[]> {
    return this.index.recipients();
  }

  async pending(): Promise<NotificationRecord[]> {
    return this.index.pending();
  }

  async ringing(): Promise<NotificationRecord[]> {
    return this.index.ringing();
  }

  async prune(rule: { olderThan?: Date; maxPerRecipient?: number }): Promise<NotificationRecord[]> {
    this.write('prune');
    const removed = this.index.selectPrunable(rule);
    for (const record of removed) this.index.delete(record.id);
    return removed;
  }

  async stats(): Promise<StorageStats> {
    return {
      engine: 'memory',
      path: ':memory:',
      writable: !this.failWrites,
      records: this.index.size,
      fileBytes: 0,
      lastWriteAt: this.lastWriteAt,
      lastError: this.lastError,
    };
  }

  private write(call: string): void {
    this.calls.push(call);
    if (this.failWrites) {
      this.lastError = 'Simulated write failure';
      throw new AppError('STORAGE_UNAVAILABLE');
    }
    this.lastWriteAt = new Date().toISOString();
    this.lastError = null;
  }
}
