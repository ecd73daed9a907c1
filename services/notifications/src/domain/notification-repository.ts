import type { NotificationPatch, NotificationRecord, PendingDelivery } from './notification.js';

/** One page of a recipient's history, newest first. */
export interface NotificationPage {
  items: NotificationRecord[];
  total: number;
  unread: number;
  /** Cursor for the next page (`before=<id>`), null on the last page. */
  nextCursor: string | null;
}

/** One recipient with a stored history, and its counts. */
export interface RecipientSummary {
  recipient: string;
  total: number;
  unread: number;
}

export interface ListQuery {
  unreadOnly?: boolean;
  limit: number;
  /** Only records older than this id (exclusive); an unknown id is an error (NOTIFICATION_NOT_FOUND). */
  before?: string;
}

/** Storage diagnostics for /health. */
export interface StorageStats {
  engine: 'yaml' | 'postgres' | 'memory';
  /** The file, or the database as host:port/name (never a user or password). */
  path: string;
  writable: boolean;
  records: number;
  fileBytes: number;
  lastWriteAt: string | null;
  lastError: string | null;
}

/**
 * Durable notification history. Every mutating call resolves only once the change is durable (fsync, or a committed
 * transaction) and rejects with AppError('STORAGE_UNAVAILABLE') when it cannot be written. Reads resolve copies the
 * caller may change.
 */
export interface NotificationRepository {
  /** Several service instances share this store: deliveries and emergencies left by another instance are picked up by polling. */
  readonly shared?: boolean;
  /** Loads (or connects to) the history; rejects, never overwriting anything, when it is corrupt, locked or unreachable. */
  open(): Promise<void>;
  /** Flushes and releases the history (file lock, or connections). */
  close(): Promise<void>;
  insert(record: NotificationRecord): Promise<void>;
  /** Applies the patch; resolves the updated record, or undefined when the id is unknown. */
  update(id: string, patch: NotificationPatch): Promise<NotificationRecord | undefined>;
  /**
   * Starts a delivery attempt: stores `delivery` (whose `attempts` is one more than the stored count) only while the
   * record is still pending with that count and no other instance holds it; resolves the stored record, or undefined
   * when it is not this caller's to send (gone, no longer pending, or claimed elsewhere).
   */
  claimAttempt(id: string, delivery: PendingDelivery): Promise<NotificationRecord | undefined>;
  /** Marks every unread record of the recipient read at `readAt`; resolves how many changed. */
  markAllRead(recipient: string, readAt: string): Promise<number>;
  /** Removes the record; resolves it, or undefined when the id is unknown. */
  remove(id: string): Promise<NotificationRecord | undefined>;
  get(id: string): Promise<NotificationRecord | undefined>;
  list(recipient: string, query: ListQuery): Promise<NotificationPage>;
  /** Every recipient with at least one stored notification, by name, with its counts (no scan of records). */
  recipients(): Promise<RecipientSummary[]>;
  /**
   * Records with something left to send (the delivery pending, or a fallback target pending) and not held by another
   * instance: resumed after a restart.
   */
  pending(): Promise<NotificationRecord[]>;
  /** Emergencies that may still be ringing (see `isRinging`): followed again after a restart. */
  ringing(): Promise<NotificationRecord[]>;
  /** Removes records older than `olderThan` and beyond `maxPerRecipient` per recipient; resolves the removed ones. */
  prune(rule: { olderThan?: Date; maxPerRecipient?: number }): Promise<NotificationRecord[]>;
  stats(): Promise<StorageStats>;
}
