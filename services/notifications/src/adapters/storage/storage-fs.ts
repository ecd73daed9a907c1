import { open, mkdir, readdir, rename, stat, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';

/** An open file as the storage uses it: whole appends, syncs, truncation. */
export interface StorageFile {
  append(data: Buffer | string): Promise<void>;
  datasync(): Promise<void>;
  sync(): Promise<void>;
  truncate(length: number): Promise<void>;
  size(): Promise<number>;
  close(): Promise<void>;
}

/** The file-system calls the history makes; a seam so tests can inject disk failures (chmod does not stop root). */
export interface StorageFs {
  open(path: string, flags: 'a' | 'w' | 'r'): Promise<StorageFile>;
  readFile(path: string): Promise<Buffer>;
  /** The file in blocks of about `blockBytes`, so a large file is never in memory at once. */
  /** With `reuse`, every block is read into the same buffer: the caller must be done with one before asking for the next. */
  readBlocks(path: string, blockBytes: number, reuse?: boolean): AsyncIterable<Buffer>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  readdir(dir: string): Promise<string[]>;
  /** Bytes of a file (ENOENT when it is gone). */
  sizeOf(path: string): Promise<number>;
  mkdir(dir: string): Promise<void>;
  /** fsync of a directory, so a rename or a new file survives a power cut. */
  syncDir(dir: string): Promise<void>;
}

// Loops until every byte is written (one write() may be short); a plain write avoids appendFile's generic path.
async function appendAll(handle: FileHandle, data: Buffer | string): Promise<void> {
  const buffer = typeof data === 'string' ? Buffer.from(data) : data;
  let offset = 0;
  while (offset < buffer.length) {
    const { bytesWritten } = await handle.write(buffer, offset, buffer.length - offset);
    offset += bytesWritten;
  }
}

function wrap(handle: FileHandle): StorageFile {
  return {
    append: (data) => appendAll(handle, data),
    datasync: () => handle.datasync(),
    sync: () => handle.sync(),
    truncate: (length) => handle.truncate(length),
    size: async () => (await handle.stat()).size,
    close: () => handle.close(),
  };
}

// fs.readFile reads in 512 KiB steps, one thread-pool round trip each; a 45 MB history then spends most of its
// startup waiting to be scheduled on a busy machine. One read of the known size is one round trip.
async function readWhole(path: string): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const size = (await handle.stat()).size;
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buffer = Buffer.allocUnsafe(Math.max(size - total, 64 * 1024));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, total);
      if (bytesRead === 0) break;
      chunks.push(buffer.subarray(0, bytesRead));
      total += bytesRead;
    }
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
  } finally {
    await handle.close();
  }
}

async function* readBlocks(path: string, blockBytes: number, reuse = false): AsyncIterable<Buffer> {
  const handle = await open(path, 'r');
  // One buffer for a whole file read at startup leaves no hundreds of MB of blocks for the garbage collector.
  const shared = reuse ? Buffer.allocUnsafe(blockBytes) : undefined;
  try {
    for (let position = 0; ;) {
      const buffer = shared ?? Buffer.allocUnsafe(blockBytes);
      const { bytesRead } = await handle.read(buffer, 0, blockBytes, position);
      if (bytesRead === 0) return;
      position += bytesRead;
      yield buffer.subarray(0, bytesRead);
    }
  } finally {
    await handle.close();
  }
}

/** Owner-only: the history and attachments are private to the household; created so, and tightened when reopened. */
export const FILE_MODE = 0o600;
/** Owner-only folders (the data and attachments folders), set only on folders the storage creates. */
export const DIR_MODE = 0o700;

// A file left by an older version (0644) is tightened the first time it is written again; a file we do not own is
// left as it is (fchmod would fail), since refusing to write it would take the history down for a permission bit.
async function openPrivate(path: string, flags: 'a' | 'w' | 'r'): Promise<FileHandle> {
  const handle = await open(path, flags, FILE_MODE);
  if (flags === 'r') return handle;
  try {
    if (((await handle.stat()).mode & 0o077) !== 0) await handle.chmod(FILE_MODE).catch(() => undefined);
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
  return handle;
}

/** The real file system (node:fs/promises). */
export const nodeStorageFs: StorageFs = {
  open: async (path, flags) => wrap(await openPrivate(path, flags)),
  readFile: readWhole,
  readBlocks,
  rename: (from, to) => rename(from, to),
  unlink: (path) => unlink(path),
  readdir: (dir) => readdir(dir),
  sizeOf: async (path) => (await stat(path)).size,
  mkdir: async (dir) => {
    await mkdir(dir, { recursive: true, mode: DIR_MODE });
  },
  syncDir: async (dir) => {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  },
};

/** True for ENOENT: the file simply is not there. */
export function isNotFound(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}
