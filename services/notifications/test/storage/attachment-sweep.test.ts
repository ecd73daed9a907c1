import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileAttachmentStore } from '../../src/adapters/storage/file-attachment.store.js';
import { nodeStorageFs, type StorageFs } from '../../src/adapters/storage/storage-fs.js';
import { makeTempDir } from './storage-harness.js';

/** The real file system, counting directory listings. */
function countingFs(): StorageFs & { readdirs: number } {
  const fs = { ...nodeStorageFs, readdirs: 0 };
  fs.readdir = (dir) => {
    fs.readdirs++;
    return nodeStorageFs.readdir(dir);
  };
  return fs;
}

async function storeWith(names: string[]): Promise<{ dir: string; store: FileAttachmentStore; fs: ReturnType<typeof countingFs> }> {
  const dir = join(await makeTempDir(), 'attachments');
  await mkdir(dir);
  for (const name of names) await writeFile(join(dir, name), `bytes of ${name}`);
  const fs = countingFs();
  return { dir, store: new FileAttachmentStore(dir, fs), fs };
}

describe('FileAttachmentStore.sweep', () => {
  it('deletes the orphans and their interrupted saves in one listing, keeping referenced files', async () => {
    const { dir, store, fs } = await storeWith(['orphan', 'orphan.tmp-0123456789ab', 'kept', 'kept-too']);
    const asked: string[] = [];
    const result = await store.sweep((id) => {
      asked.push(id);
      return id === 'orphan';
    });
    expect(result).toEqual({ removed: 2, failed: 0 });
    expect((await readdir(dir)).sort()).toEqual(['kept', 'kept-too']);
    expect(asked.sort()).toEqual(['kept', 'kept-too', 'orphan', 'orphan']);
    expect(fs.readdirs).toBe(1);
    expect((await store.read('kept'))?.toString()).toBe('bytes of kept');
  });

  it('never touches names save() does not write, even when every id is called an orphan', async () => {
    const foreign = ['README.md', '.hidden', 'notes.txt', 'x.tmp-short', 'x.tmp-0123456789AB', 'a b', 'x.tmp-0123456789ab.bak'];
    const { dir, store } = await storeWith([...foreign, 'ours']);
    const asked: string[] = [];
    const result = await store.sweep((id) => (asked.push(id), true));
    expect(result).toEqual({ removed: 1, failed: 0 });
    expect(asked).toEqual(['ours']);
    expect((await readdir(dir)).sort()).toEqual([...foreign].sort());
  });

  it('counts an entry it cannot delete as failed and carries on with the rest', async () => {
    const { dir, store } = await storeWith(['orphan']);
    await mkdir(join(dir, 'folder'));
    const result = await store.sweep(() => true);
    expect(result).toEqual({ removed: 1, failed: 1 });
    expect(await readdir(dir)).toEqual(['folder']);
  });

  it('resolves zero, creating nothing, when no attachment was ever stored', async () => {
    const dir = join(await makeTempDir(), 'attachments');
    const store = new FileAttachmentStore(dir);
    expect(await store.sweep(() => true)).toEqual({ removed: 0, failed: 0 });
    await expect(readdir(dir)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('rejects with STORAGE_UNAVAILABLE when the directory cannot be listed', async () => {
    const fs: StorageFs = { ...nodeStorageFs, readdir: () => Promise.reject(Object.assign(new Error('EIO: injected'), { code: 'EIO' })) };
    const store = new FileAttachmentStore(join(await makeTempDir(), 'attachments'), fs);
    await expect(store.sweep(() => true)).rejects.toMatchObject({ code: 'STORAGE_UNAVAILABLE' });
  });
});
