import { basename, dirname, join } from 'node:path';
import { AppError } from '@homeops/common';
import { cachePath, readIndexCache, type CacheKey } from './index-cache.js';
import { JournalCorruptError, parseJournal } from './journal.js';
import { NotificationIndex } from './notification-index.js';
import { readSnapshotBlocks, SnapshotError } from './snapshot-parser.js';
import { snapshotTempPath } from './snapshot-writer.js';
import { isNotFound, type StorageFs } from './storage-fs.js';

const SNAPSHOT_BLOCK_BYTES = 8 * 1024 * 1024;

/** The history as found on disk: snapshot plus the journals newer than it. */
export interface LoadedHistory {
  index: NotificationIndex;
  snapshotBytes: number;
  /** Journal to append to next, and how many of its bytes are valid. */
  journalGeneration: number;
  journalValidBytes: number;
  /** Bytes of a crash-torn tail dropped from the last journal. */
  tornBytes: number;
  /** Bytes of replayed journals other than the last. */
  olderJournalBytes: number;
  /** Leftovers of an interrupted fold: journals already in the snapshot, the temp file. */
  staleFiles: string[];
  /** Why the index cache was not used, when it was not; and the key of the snapshot that was parsed instead. */
  cacheUnused?: string;
  parsedSnapshot?: CacheKey;
}

function unloadable(file: string, line: number, reason: string): AppError {
  return new AppError('STORAGE_UNAVAILABLE', `Cannot load the notification history: ${file}, line ${line}: ${reason}`, {
    solution: `Fix or move ${file} and start again; the service left it untouched`,
    details: [{ path: `${file}:${line}`, message: reason }],
  });
}

/** The generations of `<base>.<n>.journal` files beside the snapshot, ascending. */
export async function listJournalGenerations(fs: StorageFs, path: string): Promise<number[]> {
  const prefix = `${basename(path)}.`;
  const generations: number[] = [];
  for (const name of await fs.readdir(dirname(path))) {
    const match = name.startsWith(prefix) ? /^(\d+)\.journal$/.exec(name.slice(prefix.length)) : null;
    if (match !== null) generations.push(Number(match[1]));
  }
  return generations.sort((a, b) => a - b);
}

/** Reads the snapshot and replays the newer journals; throws AppError naming the file and line of any damage. */
export async function loadHistory(fs: StorageFs, path: string): Promise<LoadedHistory> {
  let index = new NotificationIndex();
  let snapshotBytes = 0;
  let generation = 1;
  let parsedSnapshot: CacheKey | undefined;
  // A cache that cannot be read is no reason not to start: the snapshot is the truth.
  const cached = await readIndexCache(fs, path).catch((error: unknown) => ({ unusable: `the index cache cannot be read: ${(error as Error).message}` }));
  if ('index' in cached) {
    index = cached.index;
    generation = cached.key.generation;
    snapshotBytes = cached.key.snapshotBytes;
  } else {
    try {
      // Read in blocks, each record into the compact index as soon as it is parsed: neither the file nor its records
      // as objects are ever in memory whole.
      const read = await readSnapshotBlocks(fs.readBlocks(path, SNAPSHOT_BLOCK_BYTES), () => fs.readFile(path), {
        record(record, line) {
          if (!index.insertNew(record)) throw new SnapshotError(line, `duplicate id ${record.id}`);
        },
        restart() {
          index = new NotificationIndex();
        },
      });
      generation = read.generation;
      snapshotBytes = read.bytes;
      parsedSnapshot = { generation, snapshotBytes: read.bytes, snapshotCrc: read.crc };
    } catch (error) {
      if (error instanceof SnapshotError) throw unloadable(path, error.line, error.message);
      if (!isNotFound(error)) throw error;
    }
  }
  const staleFiles = [snapshotTempPath(path), `${cachePath(path)}.tmp`];
  let journalGeneration = generation;
  let journalValidBytes = 0;
  let tornBytes = 0;
  let olderJournalBytes = 0;
  for (const journalGen of await listJournalGenerations(fs, path)) {
    const file = join(dirname(path), `${basename(path)}.${journalGen}.journal`);
    if (journalGen < generation) {
      staleFiles.push(file);
      continue;
    }
    let content;
    try {
      content = parseJournal(await fs.readFile(file), (entry) => {
        if ('put' in entry) index.put(entry.put, false);
        else index.delete(entry.del);
      });
    } catch (error) {
      if (error instanceof JournalCorruptError) throw unloadable(file, error.line, error.message);
      throw error;
    }
    olderJournalBytes += journalValidBytes;
    journalGeneration = journalGen;
    journalValidBytes = content.validBytes;
    tornBytes = content.tornBytes;
  }
  return {
    index,
    snapshotBytes,
    journalGeneration,
    journalValidBytes,
    tornBytes,
    olderJournalBytes,
    staleFiles,
    ...('unusable' in cached ? { cacheUnused: cached.unusable } : {}),
    ...(parsedSnapshot ? { parsedSnapshot } : {}),
  };
}
