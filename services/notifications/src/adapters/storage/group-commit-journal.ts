import { dirname } from 'node:path';
import { systemClock, type Clock } from '@homeops/common';
import type { StorageFile, StorageFs } from './storage-fs.js';

interface Commit {
  seq: number;
  data: string;
  rollback: () => void;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** Callbacks that keep the repository's health figures (writable, last error, last write) current. */
export interface JournalHooks {
  written(bytes: number): void;
  failed(error: unknown): void;
}

/**
 * The append-only journal with group commit: every change queued while a write is in flight goes out in the next
 * single write + fdatasync, and each caller resolves only after the sync that carries its change. On failure the
 * batch and everything queued behind it (which may build on it) is rolled back in reverse order and rejected, and
 * the file is cut back to its last synced length before the next write, so nothing unacknowledged stays on disk.
 */
export class GroupCommitJournal {
  /** Bytes of the current journal file known to be synced. */
  bytes = 0;
  /** Bumped on every failed write; a snapshot captured before a failure must not be installed. */
  failureEpoch = 0;
  private file: StorageFile | undefined;
  private needsRepair = false;
  private queue: Commit[] = [];
  private flushing = false;
  private flushScheduled = false;
  private nextSeq = 1;
  private settledSeq = 0;
  private settleWaiters: Array<{ seq: number; resolve: () => void }> = [];
  private boundaryTask: (() => void) | undefined;

  constructor(
    private readonly fs: StorageFs,
    private path: string,
    private readonly delayMs: number,
    private readonly hooks: JournalHooks,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Opens the file for appending and cuts it to `validBytes` (dropping a torn tail found at load). */
  async open(validBytes: number): Promise<void> {
    const file = await this.fs.open(this.path, 'a');
    try {
      if ((await file.size()) > validBytes) {
        await file.truncate(validBytes);
        await file.datasync();
      }
    } catch (error) {
      await file.close().catch(() => undefined);
      throw error;
    }
    this.file = file;
    this.bytes = validBytes;
  }

  /** Queues a change; `rollback` undoes its in-memory effect if the write fails. */
  append(data: string, rollback: () => void): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ seq: this.nextSeq++, data, rollback, resolve, reject });
      this.scheduleFlush();
    });
  }

  /** The sequence number of the last queued change. */
  get lastSeq(): number {
    return this.nextSeq - 1;
  }

  /** Resolves once every change up to `seq` has been synced or rejected. */
  settled(seq: number): Promise<void> {
    if (this.settledSeq >= seq) return Promise.resolve();
    return new Promise((resolve) => this.settleWaiters.push({ seq, resolve }));
  }

  /**
   * Sends further appends to a new file. `atBoundary` runs synchronously between two batches (nothing in flight),
   * which is where a snapshot of memory matches "everything in the old file plus what is queued for the new one".
   */
  async rotate<T>(path: string, atBoundary: (previousBytes: number) => T): Promise<T> {
    if (this.needsRepair) throw new Error('the journal has an unrepaired write failure');
    const next = await this.fs.open(path, 'a');
    // The new file's directory entry must be durable before any change synced into it is acknowledged.
    await this.fs.syncDir(dirname(path)).catch(async (error: unknown) => {
      await next.close().catch(() => undefined);
      throw error;
    });
    const swap = (): T => {
      if (this.needsRepair) {
        void next.close().catch(() => undefined);
        throw new Error('the journal has an unrepaired write failure');
      }
      const previous = this.file;
      const previousBytes = this.bytes;
      this.file = next;
      this.path = path;
      this.bytes = 0;
      void previous?.close().catch(() => undefined);
      return atBoundary(previousBytes);
    };
    if (!this.flushing) return swap();
    return new Promise<T>((resolve, reject) => {
      this.boundaryTask = () => {
        try {
          resolve(swap());
        } catch (error) {
          reject(error);
        }
      };
    });
  }

  /** Waits for every queued change, then closes the file. */
  async close(): Promise<void> {
    await this.settled(this.lastSeq);
    await this.repair().catch(() => undefined);
    await this.file?.close().catch(() => undefined);
    this.file = undefined;
  }

  private scheduleFlush(): void {
    if (this.flushScheduled || this.flushing) return;
    this.flushScheduled = true;
    const run = (): void => void this.flushLoop();
    // Kept alive: acknowledged changes wait for this flush.
    if (this.delayMs > 0) this.clock.setTimer(run, this.delayMs, { keepAlive: true });
    else setImmediate(run);
  }

  private async flushLoop(): Promise<void> {
    this.flushScheduled = false;
    this.flushing = true;
    try {
      for (;;) {
        this.runBoundaryTask();
        if (this.queue.length === 0) break;
        const batch = this.queue;
        this.queue = [];
        await this.writeBatch(batch);
      }
    } finally {
      this.flushing = false;
      this.runBoundaryTask();
    }
  }

  private runBoundaryTask(): void {
    const task = this.boundaryTask;
    this.boundaryTask = undefined;
    task?.();
  }

  private async writeBatch(batch: Commit[]): Promise<void> {
    const data = Buffer.from(batch.length === 1 ? batch[0]!.data : batch.map((commit) => commit.data).join(''));
    try {
      const file = await this.repair();
      await file.append(data);
      await file.datasync();
      this.bytes += data.length;
      this.hooks.written(data.length);
      for (const commit of batch) commit.resolve();
      this.markSettled(batch[batch.length - 1]!.seq);
    } catch (error) {
      this.needsRepair = true;
      this.failureEpoch++;
      // Changes queued meanwhile were computed on top of the failed ones, so they fail with them.
      const failed = batch.concat(this.queue);
      this.queue = [];
      for (let i = failed.length - 1; i >= 0; i--) failed[i]!.rollback();
      this.hooks.failed(error);
      for (const commit of failed) commit.reject(error);
      this.markSettled(failed[failed.length - 1]!.seq);
      // Cut the unacknowledged bytes off now, not at the next write: a restart before then would replay them.
      await this.repair().catch(() => undefined);
    }
  }

  // After a failed write the file may hold bytes nobody was told about: reopen and cut them off first.
  private async repair(): Promise<StorageFile> {
    if (!this.needsRepair && this.file !== undefined) return this.file;
    await this.file?.close().catch(() => undefined);
    this.file = undefined;
    await this.open(this.bytes);
    this.needsRepair = false;
    return this.file!;
  }

  private markSettled(seq: number): void {
    this.settledSeq = seq;
    const ready = this.settleWaiters.filter((waiter) => waiter.seq <= seq);
    this.settleWaiters = this.settleWaiters.filter((waiter) => waiter.seq > seq);
    for (const waiter of ready) waiter.resolve();
  }
}
