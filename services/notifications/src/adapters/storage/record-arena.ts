import type { NotificationRecord } from '../../domain/notification.js';
import { decodeRecord, encodeInto, Writer } from './record-codec.js';

const CHUNK_BYTES = 4 * 1024 * 1024;
const CHUNK_SPAN = 2 ** 32;
const EMPTY = Buffer.alloc(0);

/**
 * Encoded records, appended to 4 MiB buffers outside the JS heap and never changed in place: a position stays valid
 * (and a fold can read a captured set of positions) while newer versions are appended. The live bytes of each chunk
 * are counted, so the space of replaced or removed versions is reclaimed a chunk at a time: its live records are
 * copied to the current chunk and the chunk is dropped (`NotificationIndex.reclaimChunk`).
 */
export class RecordArena {
  private chunks: Buffer[] = [];
  private liveByChunk: number[] = [];
  private used = CHUNK_BYTES;
  // Encodes straight into the current chunk; a record that does not fit moves to a new one.
  private readonly writer = new Writer((writer, needed) => {
    const written = writer.pos - writer.start;
    const chunk = Buffer.allocUnsafeSlow(Math.max(CHUNK_BYTES, (written + needed) * 2));
    writer.buf.copy(chunk, 0, writer.start, writer.pos);
    this.chunks.push(chunk);
    this.liveByChunk.push(0);
    writer.buf = chunk;
    writer.start = 0;
    writer.pos = written;
  });

  /** Encodes the record into the arena; resolves its position and length. */
  encode(record: NotificationRecord): { position: number; length: number } {
    const writer = this.writer;
    if (this.chunks.length === 0 || this.used >= this.chunks[this.chunks.length - 1]!.length) this.newChunk(CHUNK_BYTES);
    writer.buf = this.chunks[this.chunks.length - 1]!;
    writer.start = this.used;
    writer.pos = this.used;
    encodeInto(record, writer);
    this.used = writer.pos;
    return { position: (this.chunks.length - 1) * CHUNK_SPAN + writer.start, length: writer.pos - writer.start };
  }

  /** Copies the bytes in; resolves their position. */
  append(bytes: Buffer): number {
    let chunk = this.chunks[this.chunks.length - 1];
    if (chunk === undefined || this.used + bytes.length > chunk.length) chunk = this.newChunk(Math.max(CHUNK_BYTES, bytes.length));
    chunk.set(bytes, this.used);
    const position = (this.chunks.length - 1) * CHUNK_SPAN + this.used;
    this.used += bytes.length;
    return position;
  }

  /** The index counts a version live (stored and current) or not any more. */
  countLive(position: number, length: number, sign: 1 | -1): void {
    this.liveByChunk[Math.floor(position / CHUNK_SPAN)]! += sign * length;
  }

  /** The full chunk (not the one being written) with the most space in versions no longer live. */
  mostGarbage(): { chunk: number; garbage: number } | undefined {
    let best: { chunk: number; garbage: number } | undefined;
    for (let c = 0; c < this.chunks.length - 1; c++) {
      const garbage = this.chunks[c]!.length - this.liveByChunk[c]!;
      if (garbage > 0 && (best === undefined || garbage > best.garbage)) best = { chunk: c, garbage };
    }
    return best;
  }

  chunkOf(position: number): number {
    return Math.floor(position / CHUNK_SPAN);
  }

  /** Drops a chunk whose live records were moved out (its number stays taken, so other positions keep meaning). */
  release(chunk: number): void {
    this.chunks[chunk] = EMPTY;
    this.liveByChunk[chunk] = 0;
  }

  private newChunk(bytes: number): Buffer {
    const chunk = Buffer.allocUnsafeSlow(bytes);
    this.chunks.push(chunk);
    this.liveByChunk.push(0);
    this.used = 0;
    return chunk;
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
