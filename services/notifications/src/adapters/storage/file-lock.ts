import { open, readdir, rename, stat, unlink, utimes } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { AppError, setRepeatingTimer, sleep, systemClock, type Clock, type Timer } from '@homeops/common';
import { formatOwner, isDeadHere, newOwner, readLockFile, type LockFileView, type LockOwner } from './lock-owner.js';
import { FILE_MODE } from './storage-fs.js';

/** Timing of the heartbeat that tells a live holder on another host (another container) from a dead one. */
export interface LockTiming {
  /** How often the holder touches the lock file. */
  refreshMs: number;
  /** A lock on another host whose file has not been touched for this long is stale. */
  staleMs: number;
}

// Generous: a holder's event loop may be busy for seconds (loading a large history) without losing its lock.
const DEFAULT_TIMING: LockTiming = { refreshMs: 5_000, staleMs: 30_000 };
// A takeover in progress elsewhere takes milliseconds; past this, its taker is reported as the holder.
const BUSY_WAIT_MS = 2_000;
const BUSY_POLL_MS = 10;
// Rounds of create / read / take over; each ends in a change made by another process, so a few always suffice.
const MAX_ATTEMPTS = 1_000;
// Markers left by takers that died while taking over, followed before giving up.
const MAX_CHAIN = 8;

// Tokens of the locks this process holds or is taking over: an owner with our pid and another token is an earlier
// process that happened to have our pid (a restarted container), and is dead.
const liveHere = new Set<string>();

async function modifiedAt(path: string): Promise<number | undefined> {
  return (await stat(path).catch(() => undefined))?.mtimeMs;
}

/** Creates `path` only if it does not exist (O_EXCL), holding `owner`; false when it exists. */
async function createExclusive(path: string, owner: LockOwner): Promise<boolean> {
  let handle;
  try {
    handle = await open(path, 'wx', FILE_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new AppError('STORAGE_UNAVAILABLE', `Cannot create the lock file ${path}: ${(error as Error).message}`, { cause: error });
  }
  try {
    await handle.writeFile(formatOwner(owner));
    await handle.sync();
  } finally {
    await handle.close();
  }
  return true;
}

type Takeover = { kind: 'taken' } | { kind: 'changed' } | { kind: 'busy'; taker: LockOwner | undefined };

/**
 * An exclusive lock file (O_EXCL) naming its holder, who touches it every few seconds. A lock left by a dead
 * process is taken over: on this host when its pid is gone, from another host (a container recreated after a
 * crash or a kill) once its file stops being touched. The takeover is atomic: only the process that creates the
 * marker named after that very stale file (O_EXCL again) may replace it, so two starts on one stale lock never both
 * hold it.
 */
export class FileLock {
  private owner: LockOwner | undefined;
  private heartbeat: Timer | undefined;
  readonly path: string;

  constructor(
    path: string,
    private readonly timing: LockTiming = DEFAULT_TIMING,
    private readonly clock: Clock = systemClock,
  ) {
    this.path = resolve(path);
  }

  async acquire(target: string): Promise<void> {
    const me = newOwner();
    liveHere.add(me.token);
    try {
      await this.take(me, target);
    } catch (error) {
      liveHere.delete(me.token);
      throw error;
    }
    this.owner = me;
    this.startHeartbeat();
    await this.removeLeftovers();
  }

  async release(): Promise<void> {
    const me = this.owner;
    if (me === undefined) return;
    this.owner = undefined;
    this.heartbeat?.cancel();
    liveHere.delete(me.token);
    // Only our own file: one taken over by another host (which judged us dead) is theirs now.
    if ((await readLockFile(this.path))?.owner?.token === me.token) await unlink(this.path).catch(() => undefined);
  }

  private async take(me: LockOwner, target: string): Promise<void> {
    const giveUpAt = this.clock.now() + BUSY_WAIT_MS;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      if (await createExclusive(this.path, me)) return;
      const current = await readLockFile(this.path);
      if (current === undefined) continue; // released meanwhile
      if (!(await this.isStale(current.owner, this.path))) throw this.inUse(current.owner, target);
      const outcome = await this.takeOver(current, me);
      if (outcome.kind === 'taken') return;
      if (outcome.kind === 'busy') {
        if (this.clock.now() > giveUpAt) throw this.inUse(outcome.taker, target);
        await sleep(this.clock, BUSY_POLL_MS);
      }
    }
    throw new AppError('STORAGE_UNAVAILABLE', `Could not take over the stale lock file ${this.path}: it kept changing`);
  }

  /**
   * Replaces the stale lock file if we win its marker. A marker whose taker died is itself taken over the same way,
   * so each stale file has one chain of markers and only the live process at its end may replace the file.
   */
  private async takeOver(stale: LockFileView, me: LockOwner): Promise<Takeover> {
    let victim = stale;
    let won: string | undefined;
    try {
      for (let depth = 0; won === undefined; depth++) {
        if (depth === MAX_CHAIN) throw new AppError('STORAGE_UNAVAILABLE', `Could not take over the stale lock file ${this.path}`);
        const marker = `${this.path}.reap-${victim.key}`;
        if (await createExclusive(marker, me)) {
          won = marker;
          break;
        }
        const taker = await readLockFile(marker);
        if (taker === undefined) return { kind: 'changed' }; // its taker finished: look at the lock again
        if (!(await this.isStale(taker.owner, marker))) return { kind: 'busy', taker: taker.owner };
        victim = taker;
      }
      // Nobody else can replace the stale file now, so if it is still there it is ours to replace.
      if ((await readLockFile(this.path))?.key !== stale.key) return { kind: 'changed' };
      await this.replaceWith(me);
      return { kind: 'taken' };
    } finally {
      if (won !== undefined) await unlink(won).catch(() => undefined);
    }
  }

  // Written whole under a unique name, then renamed over the stale file: the lock path is never missing or half written.
  private async replaceWith(me: LockOwner): Promise<void> {
    const temp = `${this.path}.${me.token}.tmp`;
    try {
      await createExclusive(temp, me);
      await rename(temp, this.path);
    } catch (error) {
      await unlink(temp).catch(() => undefined);
      throw new AppError('STORAGE_UNAVAILABLE', `Cannot take over the lock file ${this.path}: ${(error as Error).message}`, { cause: error });
    }
  }

  // Markers and temp files of takers that died; none can be in use while we hold the lock.
  private async removeLeftovers(): Promise<void> {
    const prefix = `${basename(this.path)}.`;
    const names = await readdir(dirname(this.path)).catch(() => [] as string[]);
    for (const name of names) {
      if (!name.startsWith(prefix) || !/^(reap-[0-9a-f]+|[0-9a-f]{16}\.tmp)$/.test(name.slice(prefix.length))) continue;
      await unlink(join(dirname(this.path), name)).catch(() => undefined);
    }
  }

  private inUse(owner: LockOwner | undefined, target: string): AppError {
    const who = owner === undefined ? 'another process' : `process ${owner.pid} on ${owner.host}`;
    return new AppError('STORAGE_UNAVAILABLE', `${target} is already in use by ${who} (lock file ${this.path})`, {
      solution: `Stop the other instance. A lock whose holder died is taken over by itself: at once on this host, after ${this.timing.staleMs / 1000} s untouched from another host or container`,
    });
  }

  private startHeartbeat(): void {
    this.heartbeat = setRepeatingTimer(
      this.clock,
      () => {
        const now = new Date(this.clock.now());
        utimes(this.path, now, now).catch(() => undefined); // gone or unwritable: the next start sees an old lock
      },
      this.timing.refreshMs,
    );
  }

  private async isStale(owner: LockOwner | undefined, path: string): Promise<boolean> {
    if (owner === undefined || owner.host === hostname()) return isDeadHere(owner, liveHere);
    return this.stopsBeating(path);
  }

  /**
   * Watches a file from another host: stale when it is already older than the stale window by our clock, or when
   * it is not touched during a whole window (that also holds when the two clocks disagree). Gone counts as stale.
   */
  private async stopsBeating(path: string): Promise<boolean> {
    const first = await modifiedAt(path);
    if (first === undefined || this.clock.now() - first > this.timing.staleMs) return true;
    const deadline = this.clock.now() + this.timing.staleMs;
    while (this.clock.now() < deadline) {
      await sleep(this.clock, Math.min(1_000, this.timing.refreshMs));
      const now = await modifiedAt(path);
      if (now === undefined) return true;
      if (now !== first) return false;
    }
    return true;
  }
}
