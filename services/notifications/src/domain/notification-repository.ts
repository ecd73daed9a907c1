import type { NotificationPatch, NotificationRecord } from './notification.js';

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
  path: string;
  writable: boolean;
  records: number;
  fileBytes: number;
  lastWriteAt: string | null;
  lastError: string | null;
}

/**
 * Durable notification history. Reads are served from memory; every mutating call resolves only once the
 * change is on disk (fsync) and rejects with AppError('STORAGE_UNAVAILABLE') when it cannot be written.
 */
export interface NotificationRepository {
  /** Loads the history; rejects (never overwriting anything) when the file is corrupt or locked by another process. */
  open(): Promise<void>;
  /** Flushes and releases the file and its lock. */
  close(): Promise<void>;
  insert(record: NotificationRecord): Promise<void>;
  /** Applies the patch; resolves the updated record, or undefined when the id is unknown. */
  update(id: string, patch: NotificationPatch): Promise<NotificationRecord | undefined>;
  /** Marks every unread record of the recipient read at `readAt`; resolves how many changed. */
  markAllRead(recipient: string, readAt: string): Promise<number>;
  /** Removes the record; resolves it, or undefined when the id is unknown. */
  remove(id: string): Promise<NotificationRecord | undefined>;
  get(id: string): NotificationRecord | undefined;
  list(recipient: string, query: ListQuery): NotificationPage;
  /** Every recipient with at least one stored notification, by name, with its counts (no scan of records). */
  recipients(): RecipientSummary[];
  /** Records whose delivery is still pending (resumed after a restart). */
  pending(): NotificationRecord[];
  /** Emergencies that may still be ringing (see `isRinging`): followed again after a restart. */
  ringing(): NotificationRecord[];
  /** Removes records older than `olderThan` and beyond `maxPerRecipient` per recipient; resolves the removed ones. */
  prune(rule: { olderThan?: Date; maxPerRecipient?: number }): Promise<NotificationRecord[]>;
  stats(): StorageStats;
}
