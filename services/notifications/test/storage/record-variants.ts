import { UNREAD, type AlertIdentity, type Delivery, type Emergency, type NotificationRecord } from '../../src/domain/notification.js';
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
  cancelled: {
    status: 'cancelled',
    attempts: 1,
    to: 'bob',
    error: 'Not sent: its escalation chain ended (acknowledged by alice) before it went out',
    lastAttemptAt: at(7),
  },
  skipped: { status: 'skipped', attempts: 0 },
};

const settings = { retry: 60, expire: 3600, callback: 'https://example.org/ack', tags: 'smoke,kitchen' };

/** An emergency in each state of its alarm: ringing, then ended one way. */
export const ALARM_VARIANTS: Record<'ringing' | 'acknowledged' | 'expired' | 'cancelled', Emergency> = {
  ringing: settings,
  acknowledged: { ...settings, acknowledgedAt: at(8), acknowledgedBy: 'a member of family', acknowledgedByDevice: 'tablet' },
  expired: { ...settings, expiredAt: at(9) },
  cancelled: { ...settings, cancelledAt: at(10) },
};

/** The server-set identity of an emergency a webhook rang (the ringing and the cancelled variants carry one). */
export const ALERT: AlertIdentity = { source: 'alertmanager', key: '5e0b4c2f1b6a7d89', firedBy: 'token:0123456789ab' };

/** One record per delivery status, then one sent emergency per alarm state (the ringing one first), as the service stores them. */
export function recordPerVariant(): NotificationRecord[] {
  const sent = DELIVERY_VARIANTS.sent;
  return [
    ...Object.values(DELIVERY_VARIANTS).map((delivery) => makeRecord({ delivery })),
    ...Object.entries(ALARM_VARIANTS).map(([state, emergency]) => {
      // In the documented key order: emergency and alert before the read state.
      const { read: _read, readAt: _readAt, createdAt, delivery: _delivery, ...head } = makeRecord({ priority: 2 });
      const alert = state === 'ringing' || state === 'cancelled' ? { alert: { ...ALERT } } : {};
      return { ...head, emergency, ...alert, ...UNREAD, createdAt, delivery: sent };
    }),
  ];
}
