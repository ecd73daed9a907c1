import { basename, dirname } from 'node:path';
import { crc32 } from 'node:zlib';
import type { RecordSequence } from './notification-index.js';
import type { StorageFs } from './storage-fs.js';
import { formatHeader, formatRecord } from './yaml-snapshot-format.js';

/** What to write as the new snapshot, and how. */
export interface SnapshotWrite {
  path: string;
  journalName: string;
  generation: number;
  /** Decoded one at a time, so a fold of a million records never holds them all as objects. */
  records: RecordSequence;
  /** Records formatted per write; each write awaits I/O, so requests are served between chunks. */
  chunkRecords: number;
  /** Checked before the rename: false cancels (the captured state turned out not to be durable). */
  stillValid: () => Promise<boolean>;
  /**
   * Checked before each chunk with the share of records written so far (0 to 1): true gives the write up (the service
   * is stopping and the time is spent, or will be before the write ends).
   */
  abandoned?: (done: number) => boolean;
}

/** A snapshot write given up on purpose: the temp file is gone, the old snapshot and the journals are intact. */
export class SnapshotAbandoned extends Error {
  constructor(
    /** Bytes written to the temp file before it was given up (its pace, for the next estimate). */
    readonly bytesWritten: number,
  ) {
    super('the fold was given up to stop in time; the journal keeps everything');
  }
}

/** The temp file a snapshot is written to before the rename (one writer holds the lock, so one name suffices). */
export function snapshotTempPath(path: string): string {
  return `${path}.tmp`;
}

/**
 * Replaces the snapshot atomically: temp file, fsync, rename, fsync of the directory. A crash at any point leaves
 * either the old file or the new one, never a mix. Resolves the bytes written and their CRC-32 (what the index cache is
 * checked against), or undefined when cancelled.
 */
export async function writeSnapshot(fs: StorageFs, write: SnapshotWrite): Promise<{ bytes: number; crc: number } | undefined> {
  const temp = snapshotTempPath(write.path);
  const file = await fs.open(temp, 'w');
  let bytes = 0;
  let crc = 0;
  let renamed = false;
  try {
    // Each chunk is encoded once (its length is the encoded one) and dropped after its write.
    const flush = async (text: string, written: number): Promise<void> => {
      if (write.abandoned?.(written / Math.max(1, write.records.length))) throw new SnapshotAbandoned(bytes);
      const data = Buffer.from(text);
      bytes += data.length;
      crc = crc32(data, crc);
      await file.append(data);
    };
    let chunk = formatHeader(write.journalName, write.generation, write.records.length === 0);
    for (let i = 0; i < write.records.length; i++) {
      chunk += formatRecord(write.records.at(i)!);
      if ((i + 1) % write.chunkRecords === 0) {
        await flush(chunk, i + 1);
        chunk = '';
      }
    }
    await flush(chunk, write.records.length);
    await file.sync();
    await file.close();
    if (!(await write.stillValid())) return undefined;
    await fs.rename(temp, write.path);
    renamed = true;
    await fs.syncDir(dirname(write.path));
    return { bytes, crc };
  } finally {
    if (!renamed) {
      await file.close().catch(() => undefined);
      await fs.unlink(temp).catch(() => undefined);
    }
  }
}

/** `notifications.yaml` → `notifications.yaml.<generation>.journal`. */
export function journalFileName(path: string, generation: number): string {
  return `${basename(path)}.${generation}.journal`;
}
