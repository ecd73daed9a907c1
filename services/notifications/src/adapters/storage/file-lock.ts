import { hostname } from 'node:os';
import { open, readFile, unlink } from 'node:fs/promises';
import { AppError } from '@homeops/common';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readOwner(path: string): Promise<{ pid: number; host: string } | undefined> {
  try {
    const [pid, host] = (await readFile(path, 'utf8')).split('\n');
    return { pid: Number(pid), host: host ?? '' };
  } catch {
    return undefined;
  }
}

/** An exclusive lock file (O_EXCL) holding the owner's pid; a lock left by a dead process on this host is taken over. */
export class FileLock {
  private held = false;

  constructor(readonly path: string) {}

  async acquire(target: string): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const handle = await open(this.path, 'wx', 0o644);
        await handle.writeFile(`${process.pid}\n${hostname()}\n`);
        await handle.sync();
        await handle.close();
        this.held = true;
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
          throw new AppError('STORAGE_UNAVAILABLE', `Cannot create the lock file ${this.path}: ${(error as Error).message}`, { cause: error });
        }
      }
      const owner = await readOwner(this.path);
      // An unreadable or half-written lock counts as held: its writer may still be finishing.
      const stale = owner !== undefined && Number.isInteger(owner.pid) && owner.pid > 0 && owner.host === hostname() && !isAlive(owner.pid);
      if (!stale) {
        const who = owner !== undefined && Number.isInteger(owner.pid) ? `process ${owner.pid} on ${owner.host}` : 'another process';
        throw new AppError('STORAGE_UNAVAILABLE', `${target} is already in use by ${who} (lock file ${this.path})`, {
          solution: `Stop the other instance, or delete ${this.path} if no instance is running`,
        });
      }
      await unlink(this.path).catch(() => undefined);
    }
    throw new AppError('STORAGE_UNAVAILABLE', `Could not take over the stale lock file ${this.path}`);
  }

  async release(): Promise<void> {
    if (!this.held) return;
    this.held = false;
    await unlink(this.path).catch(() => undefined);
  }
}
