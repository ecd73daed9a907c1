import { randomUUID } from 'node:crypto';
import { readSince, UNREAD, type NotificationRecord } from '../src/domain/notification.js';

export const RECIPIENTS = 20;

/** A realistic record: about the size of a monitoring alert with a delivered status. */
export function benchRecord(i: number, createdAt = new Date(Date.UTC(2026, 0, 1) + i * 1000)): NotificationRecord {
  return {
    id: randomUUID(),
    recipient: `recipient-${i % RECIPIENTS}`,
    title: `Alert ${i}: disk usage above threshold`,
    message: `Host server-${i % 97} reports /var at ${(i % 40) + 60}% usage. Check the log rotation and old backups.`,
    priority: ((i % 5) - 2) as NotificationRecord['priority'],
    sound: 'pushover',
    url: `https://monitoring.example.com/hosts/server-${i % 97}`,
    ...(i % 3 === 0 ? readSince(createdAt.toISOString()) : UNREAD),
    createdAt: createdAt.toISOString(),
    delivery: { status: 'sent', attempts: 1, request: randomUUID(), lastAttemptAt: createdAt.toISOString() },
  };
}
