/** Pushover's priorities: -2 lowest, -1 low, 0 normal, 1 high, 2 emergency. */
export type Priority = -2 | -1 | 0 | 1 | 2;

/** Where delivery of one notification stands. */
export interface Delivery {
  /** expired: still pending when it became too old to be worth sending (DELIVERY_MAX_AGE_SECONDS or its ttl). */
  status: 'sent' | 'pending' | 'failed' | 'skipped' | 'expired';
  attempts: number;
  /** Pushover's receipt (emergency priority only). */
  receipt?: string;
  /** Pushover's request id of the accepted attempt. */
  request?: string;
  error?: string;
  lastAttemptAt?: string;
  nextAttemptAt?: string;
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
  read: boolean;
  readAt: string | null;
  createdAt: string;
  delivery: Delivery;
}

/** The fields of a record that may change after creation. */
export type NotificationPatch = Partial<Pick<NotificationRecord, 'read' | 'readAt' | 'delivery'>>;
