import { nodeStorageFs, type StorageFile, type StorageFs } from '../../src/adapters/storage/storage-fs.js';

function ioError(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: injected failure`), { code });
}

/** The real file system with switchable faults and counters (root ignores chmod, so failures are injected here). */
export class FaultyFs implements StorageFs {
  /** Errno code thrown by appends and syncs while set (e.g. ENOSPC, EIO). */
  failWrites: string | undefined;
  /** Write the bytes, then fail the fdatasync (the "written but not durable" case). */
  failSyncOnly = false;
  failRenames: string | undefined;
  datasyncs = 0;

  async open(path: string, flags: 'a' | 'w' | 'r'): Promise<StorageFile> {
    const file = await nodeStorageFs.open(path, flags);
    return {
      append: async (data) => {
        if (this.failWrites !== undefined && !this.failSyncOnly) throw ioError(this.failWrites);
        await file.append(data);
      },
      datasync: async () => {
        if (this.failWrites !== undefined) throw ioError(this.failWrites);
        this.datasyncs++;
        await file.datasync();
      },
      sync: async () => {
        if (this.failWrites !== undefined) throw ioError(this.failWrites);
        await file.sync();
      },
      truncate: (length) => file.truncate(length),
      size: () => file.size(),
      close: () => file.close(),
    };
  }

  readFile = nodeStorageFs.readFile;
  readBlocks = nodeStorageFs.readBlocks;
  unlink = nodeStorageFs.unlink;
  readdir = nodeStorageFs.readdir;
  sizeOf = nodeStorageFs.sizeOf;
  mkdir = nodeStorageFs.mkdir;
  syncDir = nodeStorageFs.syncDir;

  async rename(from: string, to: string): Promise<void> {
    if (this.failRenames !== undefined) throw ioError(this.failRenames);
    await nodeStorageFs.rename(from, to);
  }
}
