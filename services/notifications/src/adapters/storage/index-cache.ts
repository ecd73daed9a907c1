import { crc32 } from 'node:zlib';
import { NotificationIndex, type CapturedRecords } from './notification-index.js';
import { isNotFound, type StorageFs } from './storage-fs.js';

/**
 * `notifications.yaml.cache`: the encoded records as the index holds them, written after each fold, so a restart
 * reads them at disk speed instead of parsing the YAML (a million records: well under a second instead of several).
 * It is only a cache: used when its own checksum holds and it was made from exactly the snapshot on disk (same size
 * and CRC-32, so a snapshot edited by hand is parsed again); anything else and the YAML is read as before.
 */

const MAGIC = 'HOMEOPS-INDEX-1\n';
const HEADER_BYTES = 64;
const BLOCK_BYTES = 8 * 1024 * 1024;
const ENTRY_HEAD = 17; // length u32, time f64, recipient u32, flags u8

/** What a cache was made from: the snapshot's generation, size and CRC-32. */
export interface CacheKey {
  generation: number;
  snapshotBytes: number;
  snapshotCrc: number;
}

export function cachePath(path: string): string {
  return `${path}.cache`;
}

/** Writes the cache of a snapshot just written (temp file, then rename; no fsync: a torn cache fails its checksum). */
export async function writeIndexCache(fs: StorageFs, path: string, key: CacheKey, records: CapturedRecords): Promise<void> {
  const temp = `${cachePath(path)}.tmp`;
  const file = await fs.open(temp, 'w');
  let renamed = false;
  try {
    const names = new Map<string, number>();
    for (let i = 0; i < records.length; i++) {
      const { recipient } = records.encoded(i);
      if (!names.has(recipient)) names.set(recipient, names.size);
    }
    const header = Buffer.alloc(HEADER_BYTES);
    header.write(MAGIC, 0, 'latin1');
    header.writeUInt32LE(records.length, 16);
    header.writeDoubleLE(key.generation, 20);
    header.writeDoubleLE(key.snapshotBytes, 28);
    header.writeUInt32LE(key.snapshotCrc, 36);
    header.writeUInt32LE(names.size, 40);
    await file.append(header);
    let bodyCrc = 0;
    let block = Buffer.allocUnsafe(BLOCK_BYTES);
    let used = 0;
    const flush = async () => {
      const data = block.subarray(0, used);
      bodyCrc = crc32(data, bodyCrc);
      await file.append(Buffer.from(data));
      used = 0;
    };
    const room = async (n: number) => {
      if (used + n <= block.length) return;
      await flush();
      if (n > block.length) block = Buffer.allocUnsafe(n);
    };
    for (const name of names.keys()) {
      const bytes = Buffer.from(name, 'utf8');
      await room(4 + bytes.length);
      block.writeUInt32LE(bytes.length, used);
      bytes.copy(block, used + 4);
      used += 4 + bytes.length;
    }
    for (let i = 0; i < records.length; i++) {
      const entry = records.encoded(i);
      await room(ENTRY_HEAD + entry.bytes.length);
      block.writeUInt32LE(entry.bytes.length, used);
      block.writeDoubleLE(entry.time, used + 4);
      block.writeUInt32LE(names.get(entry.recipient)!, used + 12);
      block[used + 16] = (entry.read ? 1 : 0) | (entry.pending ? 2 : 0) | (entry.ringing ? 4 : 0);
      entry.bytes.copy(block, used + ENTRY_HEAD);
      used += ENTRY_HEAD + entry.bytes.length;
    }
    await flush();
    // The body's checksum comes last: a cache whose writing was cut short never matches.
    const trailer = Buffer.alloc(4);
    trailer.writeUInt32LE(bodyCrc);
    await file.append(trailer);
    await file.close();
    await fs.rename(temp, cachePath(path));
    renamed = true;
  } finally {
    if (!renamed) {
      await file.close().catch(() => undefined);
      await fs.unlink(temp).catch(() => undefined);
    }
  }
}

/** Size and CRC-32 of the snapshot, read in blocks; undefined when there is none. */
async function snapshotKey(fs: StorageFs, path: string): Promise<{ bytes: number; crc: number } | undefined> {
  let bytes = 0;
  let crc = 0;
  try {
    for await (const block of fs.readBlocks(path, BLOCK_BYTES)) {
      bytes += block.length;
      crc = crc32(block, crc);
    }
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
  return { bytes, crc };
}

/**
 * The index from the cache, or why it cannot be used (no cache, made from another snapshot, damaged): then the
 * snapshot must be parsed.
 */
export async function readIndexCache(fs: StorageFs, path: string): Promise<{ index: NotificationIndex; key: CacheKey } | { unusable: string }> {
  let data: Buffer;
  try {
    data = await fs.readFile(cachePath(path));
  } catch (error) {
    if (isNotFound(error)) return { unusable: 'no index cache' };
    throw error;
  }
  if (data.length < HEADER_BYTES + 4 || data.toString('latin1', 0, 16) !== MAGIC) return { unusable: 'the index cache has an unknown format' };
  const end = data.length - 4;
  const count = data.readUInt32LE(16);
  const key: CacheKey = { generation: data.readDoubleLE(20), snapshotBytes: data.readDoubleLE(28), snapshotCrc: data.readUInt32LE(36) };
  const nameCount = data.readUInt32LE(40);
  if (crc32(data.subarray(HEADER_BYTES, end)) !== data.readUInt32LE(end)) return { unusable: 'the index cache is damaged (checksum)' };
  const snapshot = await snapshotKey(fs, path);
  if (snapshot === undefined || snapshot.bytes !== key.snapshotBytes || snapshot.crc !== key.snapshotCrc) {
    return { unusable: 'the index cache was made from another snapshot' };
  }
  let pos = HEADER_BYTES;
  const names: string[] = [];
  for (let i = 0; i < nameCount; i++) {
    const length = data.readUInt32LE(pos);
    names.push(data.toString('utf8', pos + 4, pos + 4 + length));
    pos += 4 + length;
  }
  const index = new NotificationIndex();
  for (let i = 0; i < count; i++) {
    const length = data.readUInt32LE(pos);
    const flags = data[pos + 16]!;
    index.insertEncoded({
      bytes: data.subarray(pos + ENTRY_HEAD, pos + ENTRY_HEAD + length),
      time: data.readDoubleLE(pos + 4),
      recipient: names[data.readUInt32LE(pos + 12)]!,
      read: (flags & 1) !== 0,
      pending: (flags & 2) !== 0,
      ringing: (flags & 4) !== 0,
    });
    pos += ENTRY_HEAD + length;
  }
  if (pos !== end) return { unusable: 'the index cache has a different length than its records' };
  return { index, key };
}
