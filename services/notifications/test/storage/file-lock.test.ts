import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
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
    expect(second.stats().records).toBe(1);
  });

  it('refuses a lock held by another live process', async () => {
    const path = join(await makeTempDir(), 'notifications.yaml');
    const other = startProcess('setTimeout(() => {}, 30000)');
    try {
      await writeFile(`${path}.lock`, `${other.pid}\n${hostname()}\n`);
      await expect(new YamlNotificationRepository(path).open()).rejects.toMatchObject({ code: 'STORAGE_UNAVAILABLE', message: expect.stringContaining(`process ${other.pid}`) });
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
    expect(repo.stats().writable).toBe(true);
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

  it('does not take over a lock from another host', async () => {
    const path = join(await makeTempDir(), 'notifications.yaml');
    await writeFile(`${path}.lock`, `${process.pid}\nsome-other-host\n`);
    await expect(new YamlNotificationRepository(path).open()).rejects.toThrow('already in use by process');
  });
});
