import type { Delivery, NotificationRecord } from '../../src/domain/notification.js';
import { makeRecord } from './make-record.js';

const at = (minute: number) => `2026-11-24T10:${String(minute).padStart(2, '0')}:00.000Z`;

/** One delivery of each status, with every field that status has, in the order the YAML history gives them back. */
export const DELIVERY_VARIANTS: Record<Delivery['status'], Delivery> = {
  pending: { status: 'pending', attempts: 2, to: 'alice', error: 'Pushover answered 503', lastAttemptAt: at(2), nextAttemptAt: at(3), resentAt: at(1) },
  sent: {
    status: 'sent',
    attempts: 1,
    to: 'alice',
    receipt: 'r'.repeat(30),
    request: '0b5c1f2e-6a57-4bd1-9f1e-2f6b1c3d4e5f',
    lastAttemptAt: at(4),
    resentAt: at(1),
  },
  failed: { status: 'failed', attempts: 3, to: 'default', error: 'Gave up after 3 attempts: Pushover answered 503', lastAttemptAt: at(5) },
  unknown: { status: 'unknown', attempts: 1, to: 'alice', error: 'Pushover may have created this emergency alarm (no answer came)', lastAttemptAt: at(6) },
  expired: {
    status: 'expired',
    attempts: 1,
    to: 'alice',
    error: 'Not sent: still pending 700 s after creation, past the 600 s it may wait',
    lastAttemptAt: at(7),
  },
  skipped: { status: 'skipped', attempts: 0 },
};

/** One record per delivery status, as the service would store it. */
export function recordPerVariant(): NotificationRecord[] {
  return Object.values(DELIVERY_VARIANTS).map((delivery) => makeRecord({ delivery }));
}
