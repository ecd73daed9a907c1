import { randomUUID } from 'node:crypto';
import { UNREAD, type NotificationContent, type NotificationRecord, type OptionalReadStatus } from '../../src/domain/notification.js';

let clock = Date.parse('2026-01-01T00:00:00.000Z');

/** A valid record with a fresh id and a createdAt one second after the previous one. */
export function makeRecord(overrides: Partial<NotificationContent> & OptionalReadStatus = {}): NotificationRecord {
  clock += 1000;
  return {
    id: randomUUID(),
    recipient: 'alice',
    title: 'Door',
    message: 'The front door is open',
    priority: 0,
    ...UNREAD,
    createdAt: new Date(clock).toISOString(),
    delivery: { status: 'sent', attempts: 1 },
    ...overrides,
  };
}
