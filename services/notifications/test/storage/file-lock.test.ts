import { spawn } from 'node:child_process';
import { readdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join, relative } from 'node:path';
import { ManualClock } from '@homeops/common';
import { eventually } from '@homeops/test-kit';
import { describe, expect, it } from 'vitest';
import { FileLock } from '../../src/adapters/storage/file-lock.js';
import { readLockFile } from '../../src/adapters/storage/lock-owner.js';
import { YamlNotificationRepository } from '../../src/adapters/storage/yaml-notification.repository.js';
import { makeRecord } from './make-record.js';
import { makeTempDir, openRepository } from './storage-harness.js';

function startProcess(script: string): { pid: number; exited: Promise<void>; kill: () => void } {
  const child = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
  return { pid: child.pid!, exited: new Promise((resolve) => child.on('exit', () => resolve())), kill: () => child.kill('SIGKILL') };
}

describe('YamlNotificationRepository lock', () => {
  it('refuses a second open of the same file with a clear message, and allows it after close', async () => {
    const path = join(await makeTempDir(), 'notifications.yaml');
    const first = new YamlNotificationRepository(path);
    await first.open();
    await first.insert(makeRecord());
    await expect(new YamlNotificationRepository(path).open()).rejects.toThrow(`${path} is already in use by process ${process.pid}`);
    await expect(new YamlNotificationRepository(relative(process.cwd(), path)).open()).rejects.toThrow('already in use');
    await first.close();
    const second = await openRepository(path);
    expect((await second.stats()).records).toBe(1);
  });

  it('refuses a lock held by another live process', async () => {
    const path = join(await makeTempDir(), 'notifications.yaml');
    const other = startProcess('setTimeout(() => {}, 30000)');
    try {
      await writeFile(`${path}.lock`, `${other.pid}\n${hostname()}\n`);
      await expect(new YamlNotificationRepository(path).open()).rejects.toMatchObject({
        code: 'STORAGE_UNAVAILABLE',
        message: expect.stringContaining(`process ${other.pid}`),
      });
    } finally {
      other.kill();
    }
  });

  it('takes over a stale lock left by a dead process', async () => {
    const path = join(await makeTempDir(), 'notifications.yaml');
    const dead = startProcess('');
    await dead.exited;
    await writeFile(`${path}.lock`, `${dead.pid}\n${hostname()}\n`);
    await openRepository(path);
    expect((await readFile(`${path}.lock`, 'utf8')).startsWith(`${process.pid}\n${hostname()}\n`)).toBe(true);
  });

  it('takes over a lock left by an earlier process that had the same pid (a restarted container)', async () => {
    const path = join(await makeTempDir(), 'notifications.yaml');
    await writeFile(`${path}.lock`, `${process.pid}\n${hostname()}\n`);
    const repo = await openRepository(path);
    expect((await repo.stats()).writable).toBe(true);
  });

  it('takes over a lock whose pid now belongs to a different, newer process', async () => {
    const path = join(await makeTempDir(), 'notifications.yaml');
    const other = startProcess('setTimeout(() => {}, 30000)');
    try {
      await writeFile(`${path}.lock`, `${other.pid}\n${hostname()}\n\n1\n`);
      await openRepository(path);
    } finally {
      other.kill();
    }
  });
});

describe('FileLock takeover of a stale lock', () => {
  async function staleLock(): Promise<{ path: string; marker: string }> {
    const path = join(await makeTempDir(), 'notifications.yaml.lock');
    const dead = startProcess('');
    await dead.exited;
    await writeFile(path, `${dead.pid}\n${hostname()}\n`);
    return { path, marker: `${path}.reap-${(await readLockFile(path))!.key}` };
  }

  it('takes over a stale lock whose earlier taker died mid-takeover, and removes what that taker left', async () => {
    const { path, marker } = await staleLock();
    const deadTaker = startProcess('');
    await deadTaker.exited;
    await writeFile(marker, `${deadTaker.pid}\n${hostname()}\n\n\nabc\n`);

    await new FileLock(path).acquire('the history');

    expect((await readFile(path, 'utf8')).startsWith(`${process.pid}\n${hostname()}\n`)).toBe(true);
    expect(await readdir(join(path, '..'))).toEqual(['notifications.yaml.lock']);
  });

  it('leaves a stale lock to a live process that is taking it over, and names that process', async () => {
    const { path, marker } = await staleLock();
    const taker = startProcess('setTimeout(() => {}, 30000)');
    try {
      await writeFile(marker, `${taker.pid}\n${hostname()}\n\n\nabc\n`);
      await expect(new FileLock(path).acquire('the history')).rejects.toMatchObject({
        code: 'STORAGE_UNAVAILABLE',
        message: expect.stringContaining(`already in use by process ${taker.pid}`),
      });
    } finally {
      taker.kill();
    }
  });
});

describe('FileLock held from another host (another container on the same data)', () => {
  const timing = { refreshMs: 50, staleMs: 400 };
  const foreignLock = async (path: string) => writeFile(path, `1\nsome-other-host\n`);
  /** Our clock, set to now so that a file written now is fresh by it; it moves only when the test moves it. */
  const clockFromNow = () => new ManualClock(Date.now());
  /** The watch of a foreign lock waits on the clock (its one timer) before looking at the file again. */
  const watchWaits = (clock: ManualClock) => eventually(() => clock.timers === 1, 'the lock watch to wait on the clock');

  it('refuses the lock while its holder keeps touching it', async () => {
    const path = join(await makeTempDir(), 'notifications.yaml.lock');
    await foreignLock(path);
    const clock = clockFromNow();
    const acquiring = new FileLock(path, timing, clock).acquire('the history');
    await watchWaits(clock);

    // The holder touches its file within the window.
    const touched = new Date(Date.now() + 1_000);
    await utimes(path, touched, touched);
    clock.advance(timing.refreshMs);

    await expect(acquiring).rejects.toMatchObject({
      code: 'STORAGE_UNAVAILABLE',
      message: expect.stringContaining('already in use by process 1 on some-other-host'),
    });
  });

  it('takes the lock over once it stops being touched for the stale window (a container recreated after a crash)', async () => {
    const path = join(await makeTempDir(), 'notifications.yaml.lock');
    await foreignLock(path);
    const clock = clockFromNow();
    let taken = false;
    const acquiring = new FileLock(path, timing, clock).acquire('the history').then(() => void (taken = true));

    // Watched one refresh interval at a time for a whole stale window of the clock, and not taken before its end.
    for (let watched = 0; watched < timing.staleMs; watched += timing.refreshMs) {
      await watchWaits(clock);
      expect(taken).toBe(false);
      clock.advance(timing.refreshMs);
    }
    await acquiring;

    expect((await readFile(path, 'utf8')).startsWith(`${process.pid}\n${hostname()}\n`)).toBe(true);
  });

  it('takes the lock over at once when it is already older than the stale window', async () => {
    const path = join(await makeTempDir(), 'notifications.yaml.lock');
    await foreignLock(path);
    const old = new Date(Date.now() - 60_000);
    await utimes(path, old, old);
    const clock = clockFromNow();

    // The clock never moves: had the lock waited for a window, this would never resolve.
    await new FileLock(path, timing, clock).acquire('the history');

    expect(clock.timers).toBe(1); // its own heartbeat, nothing else
    expect((await readFile(path, 'utf8')).startsWith(`${process.pid}\n${hostname()}\n`)).toBe(true);
  });

  it('keeps its own lock file touched while held, and stops when released', async () => {
    const path = join(await makeTempDir(), 'notifications.yaml.lock');
    const clock = clockFromNow();
    const lock = new FileLock(path, timing, clock);
    await lock.acquire('the history');
    const old = new Date(Date.now() - 60_000);
    await utimes(path, old, old);

    clock.advance(timing.refreshMs);

    // The heartbeat stamps the file with the clock's time.
    await eventually(async () => Math.round((await stat(path)).mtimeMs) === clock.now(), 'the heartbeat to touch the lock file');
    await lock.release();
    expect(clock.timers).toBe(0);
    await expect(stat(path)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
