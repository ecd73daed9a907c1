import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileAttachmentStore } from '../../src/adapters/storage/file-attachment.store.js';
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
});
