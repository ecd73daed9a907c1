import { crc32 } from 'node:zlib';
import { NotificationIndex, type CapturedRecords } from './notification-index.js';
import { isNotFound, type StorageFs } from './storage-fs.js';

/**
 * `notifications.yaml.cache`: the encoded records as the index holds them, written after each fold, so a restart
 * reads them at disk speed instead of parsing the YAML (a million records: well under a second instead of several).
 * It is only a cache: used when its own checksum holds and it was made from exactly the snapshot on disk (same size
 * and CRC-32, so a snapshot edited by hand is parsed again); anything else and the YAML is read as before.
 */

// 2: a record's pending flag also covers a fallback target left to send; a cache of 1 would miss those once.
const MAGIC = 'HOMEOPS-INDEX-2\n';
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
    for await (const block of fs.readBlocks(path, BLOCK_BYTES, true)) {
      bytes += block.length;
      crc = crc32(block, crc);
    }
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
  return { bytes, crc };
}

/** The cache file read front to back through one reused block: never the whole file in memory at once. */
class CacheReader {
  private carry = Buffer.alloc(0);
  private pos = 0;
  /** Where the bytes counted in the body's checksum end (the header and trailer are not in it). */
  private counted = 0;
  private counting = false;
  crc = 0;

  constructor(private readonly blocks: AsyncIterator<Buffer>) {}

  /** The next `n` bytes when they are read already (most entries: no await per record), else undefined. */
  takeNow(n: number): Buffer | undefined {
    if (this.carry.length - this.pos < n) return undefined;
    this.pos += n;
    return this.carry.subarray(this.pos - n, this.pos);
  }

  /** The next `n` bytes, valid until the next call; undefined at the end of the file. */
  async take(n: number): Promise<Buffer | undefined> {
    while (this.carry.length - this.pos < n) {
      const next = await this.blocks.next();
      if (next.done) return undefined;
      this.countUpTo(this.pos);
      // The unread rest and the new block, copied out of the reused block buffer.
      this.carry = Buffer.concat([this.carry.subarray(this.pos), next.value]);
      this.pos = 0;
      this.counted = 0;
    }
    const bytes = this.carry.subarray(this.pos, this.pos + n);
    this.pos += n;
    return bytes;
  }

  /** From here on, what is taken counts toward the body's checksum (or, with false, no longer does). */
  count(on: boolean): void {
    if (on) this.counted = this.pos;
    else this.countUpTo(this.pos);
    this.counting = on;
  }

  private countUpTo(end: number): void {
    if (this.counting && end > this.counted) this.crc = crc32(this.carry.subarray(this.counted, end), this.crc);
    this.counted = end;
  }

  async atEnd(): Promise<boolean> {
    return this.carry.length === this.pos && (await this.blocks.next()).done === true;
  }
}

/**
 * The index from the cache, or why it cannot be used (no cache, made from another snapshot, damaged): then the
 * snapshot must be parsed. The records are checked against the body's checksum once all are read; an index built
 * from a damaged cache is dropped.
 */
export async function readIndexCache(fs: StorageFs, path: string): Promise<{ index: NotificationIndex; key: CacheKey } | { unusable: string }> {
  const reader = new CacheReader(fs.readBlocks(cachePath(path), BLOCK_BYTES, true)[Symbol.asyncIterator]());
  let header: Buffer | undefined;
  try {
    header = await reader.take(HEADER_BYTES);
  } catch (error) {
    if (isNotFound(error)) return { unusable: 'no index cache' };
    throw error;
  }
  if (header === undefined || header.toString('latin1', 0, 16) !== MAGIC) return { unusable: 'the index cache has an unknown format' };
  const count = header.readUInt32LE(16);
  const key: CacheKey = { generation: header.readDoubleLE(20), snapshotBytes: header.readDoubleLE(28), snapshotCrc: header.readUInt32LE(36) };
  const nameCount = header.readUInt32LE(40);
  const snapshot = await snapshotKey(fs, path);
  if (snapshot === undefined || snapshot.bytes !== key.snapshotBytes || snapshot.crc !== key.snapshotCrc) {
    return { unusable: 'the index cache was made from another snapshot' };
  }
  const damaged = { unusable: 'the index cache has a different length than its records' };
  reader.count(true);
  const names: string[] = [];
  for (let i = 0; i < nameCount; i++) {
    const length = (await reader.take(4))?.readUInt32LE(0);
    const name = length === undefined ? undefined : await reader.take(length);
    if (name === undefined) return damaged;
    names.push(name.toString('utf8'));
  }
  const index = new NotificationIndex();
  for (let i = 0; i < count; i++) {
    const head = reader.takeNow(ENTRY_HEAD) ?? (await reader.take(ENTRY_HEAD));
    if (head === undefined) return damaged;
    const time = head.readDoubleLE(4);
    const recipient = names[head.readUInt32LE(12)];
    const flags = head[16]!;
    const length = head.readUInt32LE(0);
    const bytes = reader.takeNow(length) ?? (await reader.take(length));
    if (bytes === undefined || recipient === undefined) return damaged;
    index.insertEncoded({ bytes, time, recipient, read: (flags & 1) !== 0, pending: (flags & 2) !== 0, ringing: (flags & 4) !== 0 });
  }
  reader.count(false);
  const trailer = await reader.take(4);
  if (trailer === undefined || !(await reader.atEnd())) return damaged;
  if (trailer.readUInt32LE(0) !== reader.crc) return { unusable: 'the index cache is damaged (checksum)' };
  return { index, key };
}
