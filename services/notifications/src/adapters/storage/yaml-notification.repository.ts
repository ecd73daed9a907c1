import { dirname, join } from 'node:path';
import { AppError, isAppError, setRepeatingTimer, SingleFlight, systemClock, type Clock, type Timer } from '@homeops/common';
import { readSince, type NotificationPatch, type NotificationRecord, type PendingDelivery } from '../../domain/notification.js';
import type { ListQuery, NotificationPage, NotificationRepository, RecipientSummary, StorageStats } from '../../domain/notification-repository.js';
import { applyPatch } from './apply-patch.js';
import { FileLock } from './file-lock.js';
import { GroupCommitJournal } from './group-commit-journal.js';
import { listJournalGenerations, loadHistory } from './history-loader.js';
import { writeIndexCache } from './index-cache.js';
import { encodeJournalEntry } from './journal.js';
import { NotificationIndex, type IndexUndo } from './notification-index.js';
import { describeRecordProblem } from './record-shape.js';
import { journalFileName, SnapshotAbandoned, writeSnapshot } from './snapshot-writer.js';
import { nodeStorageFs, type StorageFs } from './storage-fs.js';

/** Where the repository reports what an operator should know (torn tails dropped, folds failing). */
export type StorageLog = (level: 'info' | 'warn' | 'error', message: string) => void;

/** Tuning and seams of the YAML history; every field has a production default. */
export interface YamlRepositoryOptions {
  /** Extra wait before a group commit, to gather more changes per fdatasync (0: next tick). */
  groupCommitDelayMs?: number;
  /**
   * Fold the journal into the YAML snapshot once it holds this many bytes, or as many as the snapshot if more,
   * however busy the service is. Bounds what a restart replays (the journal loads at ~65 MB/s).
   */
  compactAfterBytes?: number;
  /** Also fold once no change came for this long (0: never), so the readable file catches up in quiet times. */
  compactWhenQuietMs?: number;
  /** ...if the journal holds at least this many bytes, or a sixteenth of the snapshot if more. */
  compactWhenQuietAfterBytes?: number;
  /** Fold on close, so a stopped service leaves everything in the readable YAML file... */
  compactOnClose?: boolean;
  /**
   * ...as far as it fits this many milliseconds; a fold that would not (by the speed of the last one) is left to
   * the next start, which replays the journal. Keeps a stop inside Docker's 10 s grace at any history size.
   */
  closeFoldBudgetMs?: number;
  /**
   * Records formatted between two awaited writes while folding (bounds event-loop stalls). The default keeps each
   * slice well under a millisecond and its text (~60 KB) out of V8's large-object space, which a fold of 100k
   * records would otherwise fill with short-lived strings and so force full garbage collections.
   */
  snapshotChunkRecords?: number;
  log?: StorageLog;
  fs?: StorageFs;
  /** Times folds, quiet periods and the lock's heartbeat (default the system clock). */
  clock?: Clock;
}

const COMPACTION_RETRY_MS = 5_000;
const DEFAULT_COMPACT_AFTER_BYTES = 32 * 1024 * 1024;
const DEFAULT_QUIET_MS = 2_000;
const DEFAULT_QUIET_AFTER_BYTES = 64 * 1024;
const DEFAULT_CLOSE_FOLD_BUDGET_MS = 3_000;
// Until a fold has been timed: about what folds reach here. Too hopeful on a slow disk, it costs only a fold
// given up at the deadline.
const DEFAULT_FOLD_BYTES_PER_MS = 60_000;
// The share of a fold written before its pace so far predicts its end (see outlivesClose).
const MIN_SHARE_FOR_PACE = 0.02;

/** What the history works with while it is open or closing. */
interface Working {
  journal: GroupCommitJournal;
  /** An index cache being written after open; a fold or close waits for it (both write the same file). */
  cacheWrite: Promise<void>;
}

/**
 * The history's life cycle. Reads answer from the index in every state; changes are taken only while open.
 * - `closed`: before the first open, after a close or a failed open. `journalBytes` is what the last journal held (for
 *   stats); `closedBy` is the close that ended the last open, which a later close() returns.
 * - `open`: the journal takes changes; `quietTimer` folds in quiet times.
 * - `closing`: waiting for writes and a last fold; a fold still running at `foldDeadline` is given up. `done` settles
 *   once closed.
 */
type Life =
  | { kind: 'closed'; journalBytes: number; closedBy: Promise<void> | undefined }
  | ({ kind: 'open'; quietTimer: Timer | undefined } & Working)
  | ({ kind: 'closing'; foldDeadline: number; done: Promise<void> } & Working);

/**
 * The notification history in a human-readable YAML file: changes are appended to a checksummed journal made
 * durable by group commit, and folded into the YAML snapshot in the background by atomic rewrite. Reads come
 * from in-memory indexes. One process per file (lock file).
 */
export class YamlNotificationRepository implements NotificationRepository {
  private readonly fs: StorageFs;
  private readonly clock: Clock;
  private readonly lock: FileLock;
  private index = new NotificationIndex();
  private life: Life = { kind: 'closed', journalBytes: 0, closedBy: undefined };
  private generation = 1;
  private snapshotBytes = 0;
  private olderJournalBytes = 0;
  private writable = true;
  private lastError: string | null = null;
  private lastWriteAtMs: number | undefined;
  private lastChangeAtMs = 0;
  private readonly compaction = new SingleFlight<void>();
  private compactionRetryAt = 0;
  /** Snapshot bytes a fold writes per millisecond, as the last one measured. */
  private foldBytesPerMs = DEFAULT_FOLD_BYTES_PER_MS;
  /** Commits whose undo may still be needed: the index is compacted only when none is. */
  private commitsInFlight = 0;

  constructor(
    readonly path: string,
    private readonly options: YamlRepositoryOptions = {},
  ) {
    this.fs = options.fs ?? nodeStorageFs;
    this.clock = options.clock ?? systemClock;
    this.lock = new FileLock(`${path}.lock`, undefined, this.clock);
  }

  async open(): Promise<void> {
    if (this.life.kind !== 'closed') throw new AppError('INTERNAL', `${this.path} is already open`);
    await this.fs.mkdir(dirname(this.path)).catch((error: unknown) => {
      throw this.storageError(error);
    });
    await this.lock.acquire(this.path);
    let journal: GroupCommitJournal | undefined;
    try {
      const loaded = await loadHistory(this.fs, this.path);
      journal = new GroupCommitJournal(
        this.fs,
        this.journalPath(loaded.journalGeneration),
        this.options.groupCommitDelayMs ?? 0,
        {
          written: () => this.onWritten(),
          failed: (error) => this.onFailed(error),
        },
        this.clock,
      );
      await journal.open(loaded.journalValidBytes);
      await this.fs.syncDir(dirname(this.path));
      if (loaded.cacheUnused !== undefined && loaded.snapshotBytes > 0) this.log('info', `Parsed ${this.path}: ${loaded.cacheUnused}`);
      if (loaded.tornBytes > 0) this.log('warn', `Dropped ${loaded.tornBytes} bytes of an unacknowledged write torn by a crash at the end of the journal`);
      for (const file of loaded.staleFiles) await this.fs.unlink(file).catch(() => undefined);
      this.index = loaded.index;
      this.generation = loaded.journalGeneration;
      this.snapshotBytes = loaded.snapshotBytes;
      this.olderJournalBytes = loaded.olderJournalBytes;
      this.writable = true;
      // Parsed because the cache did not match, and nothing replayed on top: the index is the snapshot, so the cache
      // can be made now rather than at the next fold (which may be far off).
      const parsed = loaded.parsedSnapshot;
      let cacheWrite = Promise.resolve();
      if (parsed !== undefined && loaded.journalValidBytes === 0 && loaded.olderJournalBytes === 0 && loaded.index.size > 0) {
        const records = loaded.index.records();
        cacheWrite = writeIndexCache(this.fs, this.path, parsed, records).catch((error: unknown) => {
          this.log('warn', `Could not write the index cache beside ${this.path}: ${(error as Error).message}`);
        });
      }
      this.life = { kind: 'open', journal, cacheWrite, quietTimer: undefined };
    } catch (error) {
      await journal?.close();
      await this.lock.release();
      throw isAppError(error) ? error : this.storageError(error);
    }
    this.maybeCompact();
    this.lastChangeAtMs = this.clock.now();
    const quietMs = this.options.compactWhenQuietMs ?? DEFAULT_QUIET_MS;
    if (quietMs > 0 && this.life.kind === 'open') {
      this.life = { ...this.life, quietTimer: setRepeatingTimer(this.clock, () => this.compactIfQuiet(quietMs), quietMs) };
    }
  }

  close(): Promise<void> {
    const life = this.life;
    if (life.kind === 'closing') return life.done;
    if (life.kind === 'closed') return life.closedBy ?? Promise.resolve();
    life.quietTimer?.cancel();
    const { journal, cacheWrite } = life;
    const foldDeadline = this.clock.now() + (this.options.closeFoldBudgetMs ?? DEFAULT_CLOSE_FOLD_BUDGET_MS);
    const done: Promise<void> = this.shutDown({ journal, cacheWrite }, foldDeadline).finally(() => {
      this.life = { kind: 'closed', journalBytes: journal.bytes, closedBy: done };
    });
    this.life = { kind: 'closing', journal, cacheWrite, foldDeadline, done };
    return done;
  }

  private async shutDown(working: Working, foldDeadline: number): Promise<void> {
    const { journal } = working;
    await this.compaction.current;
    await journal.settled(journal.lastSeq);
    if ((this.options.compactOnClose ?? true) && this.writable && this.journalBytes() > 0) await this.foldOnClose(working, foldDeadline);
    await working.cacheWrite;
    await journal.close();
    await this.lock.release();
  }

  private async foldOnClose(working: Working, foldDeadline: number): Promise<void> {
    const estimateMs = (this.snapshotBytes + this.journalBytes()) / this.foldBytesPerMs;
    if (this.clock.now() + estimateMs > foldDeadline) {
      const mb = (this.journalBytes() / 1e6).toFixed(1);
      this.log('info', `Left ${mb} MB of journal for the next start: folding would take about ${Math.round(estimateMs)} ms`);
      return;
    }
    await this.compact(working).catch((error: unknown) => this.logFoldFailure(error, 'on close'));
  }

  private logFoldFailure(error: unknown, when: string): void {
    if (error instanceof SnapshotAbandoned) this.log('info', `Stopping: ${error.message}`);
    else this.log('warn', `Could not fold the journal into ${this.path} (${when}): ${(error as Error).message}`);
  }

  async insert(record: NotificationRecord): Promise<void> {
    const problem = describeRecordProblem(record);
    if (problem !== undefined) throw new AppError('INTERNAL', `Refusing to store notification ${record.id}: ${problem}`);
    if (this.index.get(record.id) !== undefined) throw new AppError('NOTIFICATION_EXISTS', `Notification id ${record.id} already exists`);
    // The index keeps its own encoded copy: the caller's object is not aliased.
    await this.commit([record], []);
  }

  async update(id: string, patch: NotificationPatch): Promise<NotificationRecord | undefined> {
    const current = this.index.get(id);
    if (current === undefined) return undefined;
    const next = applyPatch(current, patch);
    await this.commit([next], []);
    return next;
  }

  async claimAttempt(id: string, delivery: PendingDelivery): Promise<NotificationRecord | undefined> {
    const current = this.index.get(id);
    if (current?.delivery.status !== 'pending' || current.delivery.attempts !== delivery.attempts - 1) return undefined;
    return this.update(id, { delivery });
  }

  async markAllRead(recipient: string, readAt: string): Promise<number> {
    const changed = this.index.unreadOf(recipient).map((record) => applyPatch(record, readSince(readAt)));
    if (changed.length > 0) await this.commit(changed, []);
    return changed.length;
  }

  async remove(id: string): Promise<NotificationRecord | undefined> {
    const current = this.index.get(id);
    if (current === undefined) return undefined;
    await this.commit([], [id]);
    return current;
  }

  async prune(rule: { olderThan?: Date; maxPerRecipient?: number }): Promise<NotificationRecord[]> {
    const removed = this.index.selectPrunable(rule);
    if (removed.length > 0)
      await this.commit(
        [],
        removed.map((record) => record.id),
      );
    return removed;
  }

  async get(id: string): Promise<NotificationRecord | undefined> {
    // Decoded afresh on every call: callers may change what they get.
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

  async stats(): Promise<StorageStats> {
    const journalBytes = this.currentJournalBytes();
    return {
      engine: 'yaml',
      path: this.path,
      writable: this.writable,
      records: this.index.size,
      fileBytes: this.snapshotBytes + this.olderJournalBytes + journalBytes,
      lastWriteAt: this.lastWriteAtMs === undefined ? null : new Date(this.lastWriteAtMs).toISOString(),
      lastError: this.lastError,
    };
  }

  // Applied to memory now (so later calls build on it), undone if the group commit carrying it fails.
  private async commit(puts: NotificationRecord[], deletes: string[]): Promise<void> {
    const life = this.life;
    if (life.kind !== 'open') throw new AppError('STORAGE_UNAVAILABLE', `The notification history ${this.path} is not open`);
    const index = this.index;
    const ids: string[] = [];
    const previous: Array<IndexUndo | undefined> = [];
    let data = '';
    for (const record of puts) {
      ids.push(record.id);
      previous.push(index.put(record));
      data += encodeJournalEntry({ put: record });
    }
    for (const id of deletes) {
      ids.push(id);
      previous.push(index.delete(id));
      data += encodeJournalEntry({ del: id });
    }
    const rollback = (): void => {
      for (let i = ids.length - 1; i >= 0; i--) index.restore(ids[i]!, previous[i]);
    };
    this.commitsInFlight += 1;
    try {
      await life.journal.append(data, rollback);
    } catch (error) {
      throw this.storageError(error);
    } finally {
      this.commitsInFlight -= 1;
    }
    if (this.commitsInFlight === 0) this.index.compactIfWorthwhile();
    this.maybeCompact();
  }

  private journalBytes(): number {
    return this.currentJournalBytes() + this.olderJournalBytes;
  }

  /** What the journal being written holds (or the last one, when closed). */
  private currentJournalBytes(): number {
    return this.life.kind === 'closed' ? this.life.journalBytes : this.life.journal.bytes;
  }

  // Folding rewrites the whole history, so under load it waits until the journal is as big as the snapshot: the
  // cost per change stays flat as the history grows, and a restart never replays more journal than snapshot.
  private maybeCompact(): void {
    if (this.journalBytes() >= Math.max(this.options.compactAfterBytes ?? DEFAULT_COMPACT_AFTER_BYTES, this.snapshotBytes)) this.startCompaction();
  }

  private compactIfQuiet(quietMs: number): void {
    const quiet = this.clock.now() - this.lastChangeAtMs >= quietMs;
    const enough = Math.max(this.options.compactWhenQuietAfterBytes ?? DEFAULT_QUIET_AFTER_BYTES, this.snapshotBytes / 16);
    if (quiet && this.journalBytes() >= enough) this.startCompaction();
  }

  private startCompaction(): void {
    const life = this.life;
    if (life.kind !== 'open' || this.compaction.current !== undefined || this.clock.now() < this.compactionRetryAt) return;
    void this.compaction.run(() =>
      this.compact(life).catch((error: unknown) => {
        this.compactionRetryAt = this.clock.now() + COMPACTION_RETRY_MS;
        this.logFoldFailure(error, 'retrying later');
      }),
    );
  }

  // Rotate to a new journal at a batch boundary, write the captured state as the new snapshot, drop old journals.
  private async compact(working: Working): Promise<void> {
    const { journal } = working;
    const started = this.clock.now();
    const generation = this.generation + 1;
    const nextJournal = this.journalPath(generation);
    const capture = await journal
      .rotate(nextJournal, (previousBytes) => {
        this.olderJournalBytes += previousBytes;
        this.generation = generation;
        return { records: this.index.records(), epoch: journal.failureEpoch, seq: journal.lastSeq };
      })
      .catch(async (error: unknown) => {
        await this.fs.unlink(nextJournal).catch(() => undefined);
        throw error;
      });
    const written = await writeSnapshot(this.fs, {
      path: this.path,
      journalName: journalFileName(this.path, generation),
      generation,
      records: capture.records,
      chunkRecords: this.options.snapshotChunkRecords ?? 128,
      stillValid: async () => {
        await journal.settled(capture.seq);
        return journal.failureEpoch === capture.epoch;
      },
      abandoned: (done) => this.outlivesClose(started, done),
    }).catch((error: unknown) => {
      // Its pace so far tells the fold on close whether to try again.
      if (error instanceof SnapshotAbandoned) this.foldBytesPerMs = Math.max(1, error.bytesWritten / Math.max(1, this.clock.now() - started));
      throw error;
    });
    if (written === undefined) throw new Error('a write failed while folding; the journal keeps everything');
    this.snapshotBytes = written.bytes;
    this.olderJournalBytes = 0;
    const tookMs = this.clock.now() - started;
    this.foldBytesPerMs = Math.max(1, written.bytes / Math.max(1, tookMs));
    this.log('info', `Folded ${capture.records.length} notifications into ${this.path} in ${tookMs} ms`);
    // Only a cache: a failure costs the next start a parse of the YAML, nothing else.
    await working.cacheWrite;
    await writeIndexCache(this.fs, this.path, { generation, snapshotBytes: written.bytes, snapshotCrc: written.crc }, capture.records).catch(
      (error: unknown) => {
        this.log('warn', `Could not write the index cache beside ${this.path}: ${(error as Error).message}`);
      },
    );
    for (const old of await listJournalGenerations(this.fs, this.path)) {
      if (old < generation) await this.fs.unlink(this.journalPath(old)).catch(() => undefined);
    }
  }

  /**
   * Whether a fold that started at `started` and has written `done` (0 to 1) of its records is to be given up because the
   * history is closing: past the close's deadline, or bound to pass it at the pace so far. A fold that started under
   * load (the quiet-time fold of a large history, say) is so given up at once instead of holding the stop until the
   * deadline only to be given up then; the journal keeps everything either way.
   */
  private outlivesClose(started: number, done: number): boolean {
    if (this.life.kind !== 'closing') return false;
    const now = this.clock.now();
    if (now > this.life.foldDeadline) return true;
    // Too little written for a pace: a fold on close starts only when its estimate fits.
    if (done < MIN_SHARE_FOR_PACE) return false;
    return started + (now - started) / done > this.life.foldDeadline;
  }

  private journalPath(generation: number): string {
    return join(dirname(this.path), journalFileName(this.path, generation));
  }

  private onWritten(): void {
    this.writable = true;
    this.lastError = null;
    this.lastWriteAtMs = this.clock.now();
    this.lastChangeAtMs = this.lastWriteAtMs;
  }

  private onFailed(error: unknown): void {
    this.writable = false;
    this.lastError = (error as Error).message;
    this.log('error', `Cannot write the notification history ${this.path}: ${this.lastError}`);
  }

  private storageError(error: unknown): AppError {
    return new AppError('STORAGE_UNAVAILABLE', `Cannot write the notification history ${this.path}: ${(error as Error).message}`, { cause: error });
  }

  private log(level: 'info' | 'warn' | 'error', message: string): void {
    this.options.log?.(level, message);
  }
}
