import { readFileSync } from 'node:fs';
import { open, readFile, stat, unlink, utimes } from 'node:fs/promises';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { AppError } from '@homeops/common';
import { FILE_MODE } from './storage-fs.js';

/** Who holds a lock: enough to tell a live holder from a dead one whose pid was reused (containers restart as pid 1). */
interface LockOwner {
  pid: number;
  host: string;
  bootId: string;
  startTime: string;
}

// Lock files held by this process, so a second open in the same process is refused while a lock left by an
// earlier process that happened to have our pid is taken over.
const heldHere = new Set<string>();

function readProc(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return ''; // not Linux, or the process is gone
  }
}

// Field 22 of /proc/<pid>/stat: start time in ticks since boot; differs when a pid has been reused.
function startTimeOf(pid: number): string {
  const stat = readProc(`/proc/${pid}/stat`);
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? '';
}

function currentOwner(): LockOwner {
  return { pid: process.pid, host: hostname(), bootId: readProc('/proc/sys/kernel/random/boot_id'), startTime: startTimeOf(process.pid) };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by someone else
  }
}

async function readOwner(path: string): Promise<LockOwner | undefined> {
  try {
    const [pid, host = '', bootId = '', startTime = ''] = (await readFile(path, 'utf8')).split('\n');
    return Number.isInteger(Number(pid)) && Number(pid) > 0 ? { pid: Number(pid), host, bootId, startTime } : undefined;
  } catch {
    return undefined;
  }
}

/** Timing of the heartbeat that tells a live holder on another host (another container) from a dead one. */
export interface LockTiming {
  /** How often the holder touches the lock file. */
  refreshMs: number;
  /** A lock on another host whose file has not been touched for this long is stale. */
  staleMs: number;
}

// Generous: a holder's event loop may be busy for seconds (loading a large history) without losing its lock.
const DEFAULT_TIMING: LockTiming = { refreshMs: 5_000, staleMs: 30_000 };

/** A holder on this host is checked by pid; an unreadable lock may still be being written. */
function isStaleHere(owner: LockOwner | undefined, path: string): boolean {
  const me = currentOwner();
  if (owner === undefined) return false;
  if (owner.bootId !== '' && me.bootId !== '' && owner.bootId !== me.bootId) return true;
  if (owner.pid === me.pid) return !heldHere.has(path);
  if (!isAlive(owner.pid)) return true;
  return owner.startTime !== '' && startTimeOf(owner.pid) !== '' && startTimeOf(owner.pid) !== owner.startTime;
}

async function modifiedAt(path: string): Promise<number | undefined> {
  return (await stat(path).catch(() => undefined))?.mtimeMs;
}

/**
 * An exclusive lock file (O_EXCL) naming its holder, who touches it every few seconds. A lock left by a dead
 * process is taken over: on this host when its pid is gone, from another host (a container recreated after a
 * crash or a kill) once its file stops being touched.
 */
export class FileLock {
  private held = false;
  private heartbeat: NodeJS.Timeout | undefined;
  readonly path: string;

  constructor(
    path: string,
    private readonly timing: LockTiming = DEFAULT_TIMING,
  ) {
    this.path = resolve(path); // one spelling per file, for the same-process check
  }

  async acquire(target: string): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const handle = await open(this.path, 'wx', FILE_MODE);
        const me = currentOwner();
        await handle.writeFile(`${me.pid}\n${me.host}\n${me.bootId}\n${me.startTime}\n`);
        await handle.sync();
        await handle.close();
        this.held = true;
        heldHere.add(this.path);
        this.startHeartbeat();
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
          throw new AppError('STORAGE_UNAVAILABLE', `Cannot create the lock file ${this.path}: ${(error as Error).message}`, { cause: error });
        }
      }
      const owner = await readOwner(this.path);
      if (!(await this.isStale(owner))) {
        const who = owner === undefined ? 'another process' : `process ${owner.pid} on ${owner.host}`;
        throw new AppError('STORAGE_UNAVAILABLE', `${target} is already in use by ${who} (lock file ${this.path})`, {
          solution: `Stop the other instance. A lock whose holder died is taken over by itself: at once on this host, after ${this.timing.staleMs / 1000} s untouched from another host or container`,
        });
      }
      await unlink(this.path).catch(() => undefined);
    }
    throw new AppError('STORAGE_UNAVAILABLE', `Could not take over the stale lock file ${this.path}`);
  }

  async release(): Promise<void> {
    if (!this.held) return;
    this.held = false;
    clearInterval(this.heartbeat);
    heldHere.delete(this.path);
    await unlink(this.path).catch(() => undefined);
  }

  private startHeartbeat(): void {
    this.heartbeat = setInterval(() => {
      const now = new Date();
      utimes(this.path, now, now).catch(() => undefined); // gone or unwritable: the next start sees an old lock
    }, this.timing.refreshMs);
    this.heartbeat.unref();
  }

  private async isStale(owner: LockOwner | undefined): Promise<boolean> {
    if (owner === undefined || owner.host === hostname()) return isStaleHere(owner, this.path);
    return this.stopsBeating();
  }

  /**
   * Watches a lock from another host: stale when it is already older than the stale window by our clock, or when
   * it is not touched during a whole window (that also holds when the two clocks disagree). Gone counts as stale.
   */
  private async stopsBeating(): Promise<boolean> {
    const first = await modifiedAt(this.path);
    if (first === undefined || Date.now() - first > this.timing.staleMs) return true;
    const deadline = Date.now() + this.timing.staleMs;
    while (Date.now() < deadline) {
      await new Promise((done) => setTimeout(done, Math.min(1_000, this.timing.refreshMs)));
      const now = await modifiedAt(this.path);
      if (now === undefined) return true;
      if (now !== first) return false;
    }
    return true;
  }
}
