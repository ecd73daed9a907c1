/** Pushover's priorities: -2 lowest, -1 low, 0 normal, 1 high, 2 emergency. */
export type Priority = -2 | -1 | 0 | 1 | 2;

/** Where delivery of one notification stands. */
export interface Delivery {
  /**
   * expired: still pending when it became too old to be worth sending (DELIVERY_MAX_AGE_SECONDS or its ttl);
   * unknown: an emergency whose send got no answer: it may be ringing, so it is not sent again (resend it if not).
   */
  status: 'sent' | 'pending' | 'failed' | 'skipped' | 'expired' | 'unknown';
  attempts: number;
  /** The recipient alias whose Pushover key it goes to (`default`: the provider's own user key); never the key. */
  to?: string;
  /** When it was resent by request: its maximum age counts from then. */
  resentAt?: string;
  /** Pushover's receipt (emergency priority only). */
  receipt?: string;
  /** Pushover's request id of the accepted attempt. */
  request?: string;
  error?: string;
  lastAttemptAt?: string;
  nextAttemptAt?: string;
}

/** Priority 2: how the alarm repeats, and how it ended. */
export interface Emergency {
  /** Seconds between repeats (at least 30). */
  retry: number;
  /** Seconds after which repeats stop (at most 10800; Pushover also stops after 50 repeats). */
  expire: number;
  callback?: string;
  tags?: string;
  acknowledgedAt?: string;
  /** The recipient alias that acknowledged it, or `a member of <alias>` for a group key's member. */
  acknowledgedBy?: string;
  acknowledgedByDevice?: string;
  /** Pushover stopped repeating it unacknowledged. */
  expiredAt?: string;
  /** Cancelled at Pushover because it was read or deleted here first. */
  cancelledAt?: string;
}

/** True while an emergency may still be ringing: sent, with a receipt, and not acknowledged, expired or cancelled. */
export function isRinging(record: NotificationRecord): boolean {
  const e = record.emergency;
  return (
    record.priority === 2 &&
    e !== undefined &&
    record.delivery.status === 'sent' &&
    record.delivery.receipt !== undefined &&
    e.acknowledgedAt === undefined &&
    e.expiredAt === undefined &&
    e.cancelledAt === undefined
  );
}

/** A file stored beside the history and referenced by the record. */
export interface AttachmentMeta {
  filename: string;
  contentType: string;
  size: number;
}

/** One stored notification. */
export interface NotificationRecord {
  id: string;
  recipient: string;
  title: string;
  message: string;
  priority: Priority;
  sound?: string;
  url?: string;
  urlTitle?: string;
  html?: boolean;
  /** Shown in a monospace font (Pushover's `monospace`; not with html). */
  monospace?: boolean;
  ttl?: number;
  device?: string;
  attachment?: AttachmentMeta;
  /** Priority 2 only. */
  emergency?: Emergency;
  read: boolean;
  readAt: string | null;
  createdAt: string;
  delivery: Delivery;
}

/** The fields of a record that may change after creation. */
export type NotificationPatch = Partial<Pick<NotificationRecord, 'read' | 'readAt' | 'delivery' | 'emergency'>>;
