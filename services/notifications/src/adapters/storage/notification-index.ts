import { AppError } from '@homeops/common';
import { isRinging, type NotificationRecord } from '../../domain/notification.js';
import type { ListQuery, NotificationPage, RecipientSummary } from '../../domain/notification-repository.js';
import { type IndexEntry, insertSorted, lowerBound, removeSorted } from './sorted-entries.js';

type Entry = IndexEntry<NotificationRecord>;

interface RecipientEntries {
  all: Entry[];
  unread: Entry[];
}

/** A copy the caller may mutate without touching the stored record. */
export function cloneRecord(record: NotificationRecord): NotificationRecord {
  const copy: NotificationRecord = { ...record, delivery: { ...record.delivery } };
  if (record.attachment !== undefined) copy.attachment = { ...record.attachment };
  if (record.emergency !== undefined) copy.emergency = { ...record.emergency };
  return copy;
}

function timeOf(record: NotificationRecord): number {
  const time = Date.parse(record.createdAt);
  return Number.isNaN(time) ? 0 : time;
}

/**
 * In-memory indexes of the history: by id, and per recipient sorted by (createdAt, insertion) with a separate
 * unread list, so pages, cursors and counts never scan other recipients. Stored records are never mutated:
 * changes replace them, which lets a snapshot writer hold references while writes go on.
 */
export class NotificationIndex {
  private readonly byId = new Map<string, Entry>();
  private readonly byRecipient = new Map<string, RecipientEntries>();
  private readonly pendingIds = new Set<string>();
  private readonly ringingIds = new Set<string>();
  private nextSeq = 0;
  private restored = false;

  get size(): number {
    return this.byId.size;
  }

  get(id: string): NotificationRecord | undefined {
    return this.byId.get(id)?.record;
  }

  /** Inserts or replaces the record (kept as given, not copied); returns the previous entry for undo. */
  put(record: NotificationRecord): Entry | undefined {
    const previous = this.byId.get(record.id);
    const time = timeOf(record);
    const entry: Entry = { record, time, seq: previous?.seq ?? this.nextSeq++ };
    if (previous !== undefined && previous.record.recipient === record.recipient && previous.time === time) {
      this.replaceInPlace(previous, entry);
    } else {
      if (previous !== undefined) this.detach(previous);
      this.attach(entry);
    }
    this.byId.set(record.id, entry);
    return previous;
  }

  delete(id: string): Entry | undefined {
    const previous = this.byId.get(id);
    if (previous === undefined) return undefined;
    this.detach(previous);
    this.byId.delete(id);
    return previous;
  }

  /** Puts back what `put`/`delete` returned, with its original position (used to roll back a failed write). */
  restore(id: string, previous: Entry | undefined): void {
    this.delete(id);
    if (previous === undefined) return;
    this.restored = true;
    this.attach(previous);
    this.byId.set(id, previous);
  }

  /** A page, newest first; `before` must be a record of this recipient. */
  list(recipient: string, query: ListQuery): NotificationPage {
    let cursor: Entry | undefined;
    if (query.before !== undefined) {
      cursor = this.byId.get(query.before);
      if (cursor === undefined || cursor.record.recipient !== recipient) {
        throw new AppError('NOTIFICATION_NOT_FOUND', `Cursor ${query.before} is not a notification of ${recipient}`);
      }
    }
    const group = this.byRecipient.get(recipient);
    if (group === undefined) return { items: [], total: 0, unread: 0, nextCursor: null };
    const source = query.unreadOnly === true ? group.unread : group.all;
    const end = cursor === undefined ? source.length : lowerBound(source, cursor.time, cursor.seq);
    const start = Math.max(0, end - Math.max(0, query.limit));
    const items: NotificationRecord[] = [];
    for (let i = end - 1; i >= start; i--) items.push(cloneRecord(source[i]!.record));
    const last = items[items.length - 1];
    return { items, total: group.all.length, unread: group.unread.length, nextCursor: start > 0 && last !== undefined ? last.id : null };
  }

  recipients(): RecipientSummary[] {
    return [...this.byRecipient]
      .map(([recipient, group]) => ({ recipient, total: group.all.length, unread: group.unread.length }))
      .sort((a, b) => (a.recipient < b.recipient ? -1 : a.recipient > b.recipient ? 1 : 0));
  }

  unreadOf(recipient: string): NotificationRecord[] {
    return (this.byRecipient.get(recipient)?.unread ?? []).map((entry) => entry.record);
  }

  /** Records whose delivery is pending, oldest first (the order to resume them in). */
  pending(): NotificationRecord[] {
    const entries = [...this.pendingIds].map((id) => this.byId.get(id)!);
    entries.sort((a, b) => a.time - b.time || a.seq - b.seq);
    return entries.map((entry) => entry.record);
  }

  /** Emergencies that may still be ringing (sent, not acknowledged, expired or cancelled), oldest first. */
  ringing(): NotificationRecord[] {
    const entries = [...this.ringingIds].map((id) => this.byId.get(id)!);
    entries.sort((a, b) => a.time - b.time || a.seq - b.seq);
    return entries.map((entry) => entry.record);
  }

  /** Every record in insertion order (the order a snapshot is written in, so reloading keeps tie order). */
  records(): NotificationRecord[] {
    const entries = [...this.byId.values()];
    // The map is in insertion order unless a rollback re-inserted an entry; sorting 100k entries stalls the loop.
    if (this.restored) entries.sort((a, b) => a.seq - b.seq);
    return entries.map((entry) => entry.record);
  }

  /** Records older than `olderThan` or beyond the newest `maxPerRecipient` of their recipient. */
  selectPrunable(rule: { olderThan?: Date; maxPerRecipient?: number }): NotificationRecord[] {
    const cutoff = rule.olderThan?.getTime();
    const selected: NotificationRecord[] = [];
    for (const group of this.byRecipient.values()) {
      const tooOld = cutoff === undefined ? 0 : lowerBound(group.all, cutoff, -Infinity);
      const beyondMax = rule.maxPerRecipient === undefined ? 0 : group.all.length - Math.max(0, rule.maxPerRecipient);
      const count = Math.max(tooOld, beyondMax);
      for (let i = 0; i < count; i++) selected.push(group.all[i]!.record);
    }
    return selected;
  }

  private groupOf(recipient: string): RecipientEntries {
    let group = this.byRecipient.get(recipient);
    if (group === undefined) {
      group = { all: [], unread: [] };
      this.byRecipient.set(recipient, group);
    }
    return group;
  }

  private attach(entry: Entry): void {
    const group = this.groupOf(entry.record.recipient);
    insertSorted(group.all, entry);
    if (!entry.record.read) insertSorted(group.unread, entry);
    this.track(entry.record);
  }

  private track(record: NotificationRecord): void {
    if (record.delivery.status === 'pending') this.pendingIds.add(record.id);
    if (isRinging(record)) this.ringingIds.add(record.id);
  }

  private untrack(id: string): void {
    this.pendingIds.delete(id);
    this.ringingIds.delete(id);
  }

  private detach(entry: Entry): void {
    const group = this.byRecipient.get(entry.record.recipient);
    this.untrack(entry.record.id);
    if (group === undefined) return;
    removeSorted(group.all, entry);
    if (!entry.record.read) removeSorted(group.unread, entry);
    if (group.all.length === 0) this.byRecipient.delete(entry.record.recipient);
  }

  // Same key, same recipient: swap the slot instead of two splices (markAllRead at 100k stays cheap).
  private replaceInPlace(previous: Entry, entry: Entry): void {
    const group = this.groupOf(entry.record.recipient);
    const at = lowerBound(group.all, previous.time, previous.seq);
    group.all[at] = entry;
    if (!previous.record.read) removeSorted(group.unread, previous);
    if (!entry.record.read) insertSorted(group.unread, entry);
    this.untrack(previous.record.id);
    this.track(entry.record);
  }
}
