import { mkdir, open, stat, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { sleep, type Clock } from '../clock.js';

// A holder keeps the lock for one read and one write of a small file: milliseconds. One older than this was left by
// a process that died holding it.
const STALE_MS = 10_000;
const WAIT_MS = 5_000;
const RETRY_MS = 5;

/**
 * Runs `work` holding the lock file `lock` (created O_EXCL, removed after), waiting while another process holds it;
 * a lock left by a process that died (older than 10 s) is removed. For short read-merge-write sections of files that
 * several processes write.
 */
export async function withFileLock<T>(lock: string, clock: Clock, work: () => Promise<T>): Promise<T> {
  const deadline = clock.now() + WAIT_MS;
  for (;;) {
    const taken = await open(lock, 'wx', 0o600).then(
      (handle) => handle.close().then(() => true),
      (err: NodeJS.ErrnoException) => {
        if (err.code === 'EEXIST') return false;
        if (err.code === 'ENOENT') return mkdir(dirname(lock), { recursive: true, mode: 0o700 }).then(() => false);
        throw err;
      },
    );
    if (taken) break;
    const since = await stat(lock).then(
      (info) => clock.now() - info.mtimeMs,
      () => 0,
    );
    if (since > STALE_MS) await unlink(lock).catch(() => {});
    else if (clock.now() >= deadline) throw new Error(`${lock} is held by another process for more than ${WAIT_MS / 1000} s`);
    else await sleep(clock, RETRY_MS);
  }
  try {
    return await work();
  } finally {
    await unlink(lock).catch(() => {});
  }
}
