import type { NotificationRecord } from '../../domain/notification.js';
import { decodeRecord, encodeInto, Writer } from './record-codec.js';

const CHUNK_BYTES = 4 * 1024 * 1024;
const CHUNK_SPAN = 2 ** 32;

/**
 * Encoded records, appended to 4 MiB buffers outside the JS heap and never changed in place: a position stays valid
 * (and a fold can read a captured set of positions) while newer versions are appended. Space of replaced or removed
 * versions is reclaimed by copying the live ones to a fresh arena (`NotificationIndex.compact`).
 */
export class RecordArena {
  private chunks: Buffer[] = [];
  private used = CHUNK_BYTES;
  // Encodes straight into the current chunk; a record that does not fit moves to a new one.
  private readonly writer = new Writer((writer, needed) => {
    const written = writer.pos - writer.start;
    const chunk = Buffer.allocUnsafeSlow(Math.max(CHUNK_BYTES, (written + needed) * 2));
    writer.buf.copy(chunk, 0, writer.start, writer.pos);
    this.chunks.push(chunk);
    writer.buf = chunk;
    writer.start = 0;
    writer.pos = written;
  });

  /** Encodes the record into the arena; resolves its position and length. */
  encode(record: NotificationRecord): { position: number; length: number } {
    const writer = this.writer;
    if (this.chunks.length === 0 || this.used >= this.chunks[this.chunks.length - 1]!.length) {
      this.chunks.push(Buffer.allocUnsafeSlow(CHUNK_BYTES));
      this.used = 0;
    }
    writer.buf = this.chunks[this.chunks.length - 1]!;
    writer.start = this.used;
    writer.pos = this.used;
    encodeInto(record, writer);
    this.used = writer.pos;
    return { position: (this.chunks.length - 1) * CHUNK_SPAN + writer.start, length: writer.pos - writer.start };
  }

  /** Takes `buffer` as a chunk as it is (records loaded from the index cache stay where they were read); resolves its base position. */
  adopt(buffer: Buffer): number {
    this.chunks.push(buffer);
    this.used = buffer.length;
    return (this.chunks.length - 1) * CHUNK_SPAN;
  }

  /** Copies the bytes in; resolves their position. */
  append(bytes: Buffer): number {
    let chunk = this.chunks[this.chunks.length - 1];
    if (chunk === undefined || this.used + bytes.length > chunk.length) {
      chunk = Buffer.allocUnsafeSlow(Math.max(CHUNK_BYTES, bytes.length));
      this.chunks.push(chunk);
      this.used = 0;
    }
    chunk.set(bytes, this.used);
    const position = (this.chunks.length - 1) * CHUNK_SPAN + this.used;
    this.used += bytes.length;
    return position;
  }

  decode(position: number, length: number): NotificationRecord {
    return decodeAt(this.chunks, position, length);
  }

  /** The bytes of one record, without copying (valid as long as the arena). */
  bytes(position: number, length: number): Buffer {
    return bytesAt(this.chunks, position, length);
  }

  /** The buffers as they are now: what a captured position reads from, even after a compaction. */
  view(): readonly Buffer[] {
    return [...this.chunks];
  }

  get allocatedBytes(): number {
    return this.chunks.reduce((sum, c) => sum + c.length, 0);
  }
}

export function decodeAt(chunks: readonly Buffer[], position: number, length: number): NotificationRecord {
  const bytes = bytesAt(chunks, position, length);
  return decodeRecord(bytes, 0, bytes.length);
}

export function bytesAt(chunks: readonly Buffer[], position: number, length: number): Buffer {
  const chunk = Math.floor(position / CHUNK_SPAN);
  const offset = position - chunk * CHUNK_SPAN;
  return chunks[chunk]!.subarray(offset, offset + length);
}
