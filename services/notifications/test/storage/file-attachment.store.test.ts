import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileAttachmentStore } from '../../src/adapters/storage/file-attachment.store.js';
import { nodeStorageFs } from '../../src/adapters/storage/storage-fs.js';
import { FaultyFs } from './faulty-fs.js';
import { makeTempDir } from './storage-harness.js';

describe('FileAttachmentStore', () => {
  it('saves, reads and removes the bytes of one notification, leaving no temp files', async () => {
    const dir = join(await makeTempDir(), 'attachments');
    const store = new FileAttachmentStore(dir);
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]);
    await store.save('01JABCDEF', bytes);
    expect(await store.read('01JABCDEF')).toEqual(bytes);
    expect(await readdir(dir)).toEqual(['01JABCDEF']);
    await store.remove('01JABCDEF');
    expect(await store.read('01JABCDEF')).toBeUndefined();
    await expect(store.remove('01JABCDEF')).resolves.toBeUndefined();
  });

  it.each(['../escape', 'a/b', '..', '', 'x.tmp-1', 'a\\b'])('refuses the id %j (no path traversal)', async (id) => {
    const store = new FileAttachmentStore(join(await makeTempDir(), 'attachments'));
    await expect(store.save(id, Buffer.from('x'))).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(store.read(id)).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(store.remove(id)).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('rejects with STORAGE_UNAVAILABLE when the disk fails, keeping the previous bytes whole', async () => {
    const dir = join(await makeTempDir(), 'attachments');
    const fs = new FaultyFs();
    const store = new FileAttachmentStore(dir, fs);
    await store.save('id1', Buffer.from('first'));
    fs.failWrites = 'ENOSPC';
    await expect(store.save('id1', Buffer.from('second'))).rejects.toMatchObject({ code: 'STORAGE_UNAVAILABLE' });
    expect((await store.read('id1'))?.toString()).toBe('first');
    expect(await readdir(dir)).toEqual(['id1']);
  });

  describe('with a budget (maxBytes)', () => {
    const bytes = (n: number) => Buffer.alloc(n, 7);
    const budgeted = async (maxBytes: number, dir?: string) =>
      new FileAttachmentStore(dir ?? join(await makeTempDir(), 'attachments'), nodeStorageFs, { maxBytes });

    it('refuses with STORAGE_FULL before writing anything, and takes bytes again once a removal made room', async () => {
      const store = await budgeted(100);
      await store.save('a', bytes(60));

      await expect(store.save('b', bytes(41))).rejects.toMatchObject({ code: 'STORAGE_FULL', message: expect.stringContaining('the budget is 100 bytes') });
      expect(await readdir(store.dir)).toEqual(['a']);

      await store.save('c', bytes(40));
      await store.remove('a');
      await store.save('d', bytes(60));
      expect((await readdir(store.dir)).sort()).toEqual(['c', 'd']);
    });

    it('counts the files already in the folder (a restart)', async () => {
      const dir = join(await makeTempDir(), 'attachments');
      await new FileAttachmentStore(dir).save('old', bytes(90));

      await expect((await budgeted(100, dir)).save('new', bytes(11))).rejects.toMatchObject({ code: 'STORAGE_FULL' });
    });

    it('lets concurrent saves together stay within the budget', async () => {
      const store = await budgeted(100);

      const results = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => store.save(`id${i}`, bytes(30))));

      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(3);
      expect(await readdir(store.dir)).toHaveLength(3);
    });

    it('sees room freed by another instance sharing the folder before refusing', async () => {
      const dir = join(await makeTempDir(), 'attachments');
      const [one, other] = [await budgeted(100, dir), await budgeted(100, dir)];
      await one.save('a', bytes(90));
      await other.remove('a');

      await expect(one.save('b', bytes(90))).resolves.toBeUndefined();
    });

    it('frees the bytes of a failed write', async () => {
      const fs = new FaultyFs();
      const store = new FileAttachmentStore(join(await makeTempDir(), 'attachments'), fs, { maxBytes: 100 });
      fs.failWrites = 'ENOSPC';
      await expect(store.save('a', bytes(80))).rejects.toMatchObject({ code: 'STORAGE_UNAVAILABLE' });
      fs.failWrites = undefined;

      await expect(store.save('a', bytes(80))).resolves.toBeUndefined();
    });

    it('has no limit with 0', async () => {
      await expect((await budgeted(0)).save('a', bytes(4096))).resolves.toBeUndefined();
    });
  });
});
