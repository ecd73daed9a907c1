import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FaultyFs } from './faulty-fs.js';
import { makeRecord } from './make-record.js';
import { makeTempDir, openRepository } from './storage-harness.js';

// Tests may run as root, where chmod does not stop writes; the failures are injected through the fs seam instead.
describe('YamlNotificationRepository when the disk fails', () => {
  it('rejects with STORAGE_UNAVAILABLE, keeps memory equal to disk, reports it, and resumes when the disk recovers', async () => {
    const path = join(await makeTempDir(), 'notifications.yaml');
    const fs = new FaultyFs();
    const repo = await openRepository(path, { fs, compactOnClose: false });
    const kept = makeRecord();
    await repo.insert(kept);
    fs.failWrites = 'ENOSPC';
    const lost = makeRecord();
    await expect(repo.insert(lost)).rejects.toMatchObject({ code: 'STORAGE_UNAVAILABLE', message: expect.stringContaining('ENOSPC') });
    await expect(repo.update(kept.id, { read: true, readAt: '2026-05-01T00:00:00.000Z' })).rejects.toMatchObject({ code: 'STORAGE_UNAVAILABLE' });
    expect(await repo.get(lost.id)).toBeUndefined();
    expect((await repo.get(kept.id))?.read).toBe(false);
    expect(await repo.stats()).toMatchObject({ writable: false, lastError: expect.stringContaining('ENOSPC'), records: 1 });

    fs.failWrites = undefined;
    const after = makeRecord();
    await repo.insert(after);
    expect(await repo.stats()).toMatchObject({ writable: true, lastError: null, records: 2 });
    await repo.close();
    const reopened = await openRepository(path);
    expect([(await reopened.get(kept.id))?.read, await reopened.get(lost.id), (await reopened.get(after.id))?.id]).toEqual([false, undefined, after.id]);
  });

  it('cuts off bytes that were written but whose fdatasync failed, so they never resurface', async () => {
    const path = join(await makeTempDir(), 'notifications.yaml');
    const fs = new FaultyFs();
    const repo = await openRepository(path, { fs, compactOnClose: false });
    fs.failWrites = 'EIO';
    fs.failSyncOnly = true;
    const phantom = makeRecord();
    await expect(repo.insert(phantom)).rejects.toMatchObject({ code: 'STORAGE_UNAVAILABLE' });
    // Gone from the file at once, not only before the next write: a restart now must not replay it.
    await expect.poll(async () => (await readFile(`${path}.1.journal`, 'utf8')).includes(phantom.id)).toBe(false);
    fs.failWrites = undefined;
    const real = makeRecord();
    await repo.insert(real);
    await repo.close();
    const reopened = await openRepository(path);
    expect(await reopened.get(phantom.id)).toBeUndefined();
    expect((await reopened.get(real.id))?.id).toBe(real.id);
  });

  it('fails every change queued behind a failed group commit and rolls them all back', async () => {
    const path = join(await makeTempDir(), 'notifications.yaml');
    const fs = new FaultyFs();
    const repo = await openRepository(path, { fs });
    const base = makeRecord();
    await repo.insert(base);
    fs.failWrites = 'EIO';
    const results = await Promise.allSettled([
      repo.insert(makeRecord()),
      repo.update(base.id, { read: true, readAt: base.createdAt }),
      repo.markAllRead('alice', base.createdAt),
      repo.remove(base.id),
    ]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected', 'rejected', 'rejected']);
    expect(await repo.list('alice', { limit: 10 })).toMatchObject({ total: 1, unread: 1 });
    expect(await repo.get(base.id)).toEqual(base);
    fs.failWrites = undefined;
  });

  it('keeps acknowledging writes when folding fails, and folds once renames work again', async () => {
    const dir = await makeTempDir();
    const path = join(dir, 'notifications.yaml');
    const fs = new FaultyFs();
    fs.failRenames = 'EROFS';
    const warnings: string[] = [];
    const repo = await openRepository(path, { fs, compactAfterBytes: 2048, log: (_level, message) => warnings.push(message) });
    const records = Array.from({ length: 30 }, () => makeRecord());
    for (const record of records) await repo.insert(record);
    await expect.poll(() => warnings.some((message) => message.includes('EROFS'))).toBe(true);
    expect((await repo.stats()).writable).toBe(true);
    expect((await readdir(dir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    fs.failRenames = undefined;
    await repo.close();
    const reopened = await openRepository(path);
    expect(await Promise.all(records.map((record) => reopened.get(record.id)))).not.toContain(undefined);
    expect((await readdir(dir)).filter((name) => name.endsWith('.journal'))).toHaveLength(1);
  });
});
