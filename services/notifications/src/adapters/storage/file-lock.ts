import { readFileSync } from 'node:fs';
import { open, readFile, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { AppError } from '@homeops/common';

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

/** A holder on another host cannot be checked and counts as alive; an unreadable lock may still be being written. */
function isStale(owner: LockOwner | undefined, path: string): boolean {
  const me = currentOwner();
  if (owner === undefined || owner.host !== me.host) return false;
  if (owner.bootId !== '' && me.bootId !== '' && owner.bootId !== me.bootId) return true;
  if (owner.pid === me.pid) return !heldHere.has(path);
  if (!isAlive(owner.pid)) return true;
  return owner.startTime !== '' && startTimeOf(owner.pid) !== '' && startTimeOf(owner.pid) !== owner.startTime;
}

/** An exclusive lock file (O_EXCL) naming its holder; a lock left by a dead process on this host is taken over. */
export class FileLock {
  private held = false;
  readonly path: string;

  constructor(path: string) {
    this.path = resolve(path); // one spelling per file, for the same-process check
  }

  async acquire(target: string): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const handle = await open(this.path, 'wx', 0o644);
        const me = currentOwner();
        await handle.writeFile(`${me.pid}\n${me.host}\n${me.bootId}\n${me.startTime}\n`);
        await handle.sync();
        await handle.close();
        this.held = true;
        heldHere.add(this.path);
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
          throw new AppError('STORAGE_UNAVAILABLE', `Cannot create the lock file ${this.path}: ${(error as Error).message}`, { cause: error });
        }
      }
      const owner = await readOwner(this.path);
      if (!isStale(owner, this.path)) {
        const who = owner === undefined ? 'another process' : `process ${owner.pid} on ${owner.host}`;
        throw new AppError('STORAGE_UNAVAILABLE', `${target} is already in use by ${who} (lock file ${this.path})`, {
          solution: `Stop the other instance; if none is running (for example a container recreated after a crash), delete ${this.path}`,
        });
      }
      await unlink(this.path).catch(() => undefined);
    }
    throw new AppError('STORAGE_UNAVAILABLE', `Could not take over the stale lock file ${this.path}`);
  }

  async release(): Promise<void> {
    if (!this.held) return;
    this.held = false;
    heldHere.delete(this.path);
    await unlink(this.path).catch(() => undefined);
  }
}
