import type { Delivery, NotificationRecord, Priority, ReadStatus } from '../../domain/notification.js';

/**
 * A compact binary form of a NotificationRecord, so a million records fit in a few hundred megabytes: no key names,
 * canonical ISO times as 8-byte numbers, UUIDs as 16 bytes, text as UTF-8. Decoding gives back an equal record
 * (anything unusual, such as a non-canonical time, a lone surrogate or an unknown key, is kept as JSON).
 */

const STATUSES: Array<Delivery['status']> = ['sent', 'pending', 'failed', 'skipped', 'expired', 'unknown', 'cancelled'];
const STATUS_CODE = new Map(STATUSES.map((s, i) => [s, i]));

// Field tags; the high bits say how the value is stored.
const AS_UUID = 0x40;
const AS_JSON = 0x80;
const AS_TIME = 0x40;
const TAG_MASK = 0x3f;

const RECORD_TEXT = ['id', 'recipient', 'title', 'message', 'sound', 'url', 'urlTitle', 'device'] as const;
const DELIVERY_TEXT = ['to', 'receipt', 'request', 'error'] as const;
const DELIVERY_TIMES = ['lastAttemptAt', 'nextAttemptAt', 'resentAt'] as const;
const T_RECORD_TEXT = 1; // 1..8
const T_DELIVERY_TEXT = 9; // 9..12
const T_CREATED = 13;
const T_READ_AT = 14;
const T_DELIVERY_TIME = 15; // 15..17
const T_RECORD_REST = 20;
const T_DELIVERY_REST = 21;

// Keys the header or a tag always carries; text keys are carried only when their value is a string.
const FIXED_RECORD_KEYS = new Set<string>(['priority', 'html', 'monospace', 'read', 'readAt', 'createdAt', 'delivery']);
const FIXED_DELIVERY_KEYS = new Set<string>(['status', 'attempts', ...DELIVERY_TIMES]);
const RECORD_TEXT_KEYS = new Set<string>(RECORD_TEXT);
const DELIVERY_TEXT_KEYS = new Set<string>(DELIVERY_TEXT);

// Header flags.
const F_READ = 1;
const F_HTML = 2;
const F_HTML_TRUE = 4;
const F_MONO = 8;
const F_MONO_TRUE = 16;

/** The value of each lowercase hex digit by char code; 16 (not a digit) for every other code below 128. */
const HEX = new Uint8Array(128).fill(16);
for (let c = 48; c <= 57; c++) HEX[c] = c - 48;
for (let c = 97; c <= 102; c++) HEX[c] = c - 87;

/**
 * Where encodeRecord writes: `buf` from `start`. When the record does not fit, `grow` gives a buffer with room for
 * `needed` more bytes after the part already written, which it copied to the new buffer's `start`.
 */
export class Writer {
  buf: Buffer = Buffer.allocUnsafe(4096);
  start = 0;
  pos = 0;

  constructor(private readonly grow?: (writer: Writer, needed: number) => void) {}

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    if (this.grow) return this.grow(this, n);
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos - this.start + n));
    this.buf.copy(next, 0, this.start, this.pos);
    this.pos -= this.start;
    this.start = 0;
    this.buf = next;
  }

  byte(value: number): void {
    this.ensure(1);
    this.buf[this.pos++] = value;
  }

  varint(value: number): void {
    this.ensure(8);
    let v = value;
    while (v >= 0x80) {
      this.buf[this.pos++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.pos++] = v;
  }

  double(value: number): void {
    this.ensure(8);
    this.buf.writeDoubleLE(value, this.pos);
    this.pos += 8;
  }

  utf8(text: string): void {
    if (!this.ascii(text)) this.encoded(text);
  }

  /** Writes short ASCII text (most text) by copying its char codes; false, writing nothing, for any other text. */
  ascii(text: string): boolean {
    const n = text.length;
    if (n >= 128) return false;
    this.ensure(n + 1);
    const buf = this.buf;
    const at = this.pos + 1;
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0x80) return false;
      buf[at + i] = c;
    }
    buf[this.pos] = n;
    this.pos = at + n;
    return true;
  }

  private encoded(text: string): void {
    const length = Buffer.byteLength(text, 'utf8');
    this.ensure(8 + length);
    this.varint(length);
    this.pos += this.buf.write(text, this.pos, 'utf8');
  }

  /**
   * Writes a lowercase canonical UUID (what randomUUID and Pushover's request ids look like) as 16 bytes after `tag`;
   * false, writing nothing, for any other text.
   */
  uuid(tag: number, text: string): boolean {
    if (text.length !== 36) return false;
    this.ensure(17);
    const buf = this.buf;
    let at = this.pos + 1;
    for (let i = 0; i < 36; i += 2) {
      if (i === 8 || i === 13 || i === 18 || i === 23) {
        if (text.charCodeAt(i) !== 45) return false;
        i -= 1;
        continue;
      }
      const high = HEX[text.charCodeAt(i)] ?? 16;
      const low = HEX[text.charCodeAt(i + 1)] ?? 16;
      if ((high | low) > 15) return false;
      buf[at++] = (high << 4) | low;
    }
    buf[this.pos] = tag;
    this.pos = at;
    return true;
  }
}

let writer = new Writer();

function writeText(tag: number, value: string): void {
  if (writer.uuid(tag | AS_UUID, value)) return;
  // Relative to the record's start: writing may move the record to a larger buffer.
  const mark = writer.pos - writer.start;
  writer.byte(tag);
  // ASCII is always well-formed: only other text needs the check.
  if (writer.ascii(value)) return;
  writer.pos = writer.start + mark;
  if ((value as string & { isWellFormed(): boolean }).isWellFormed()) {
    writer.byte(tag);
    writer.utf8(value);
  } else {
    // A lone surrogate does not survive UTF-8; JSON escapes it.
    writer.byte(tag | AS_JSON);
    writer.utf8(JSON.stringify(value));
  }
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function digits(value: string, start: number, count: number): number {
  let n = 0;
  for (let i = start; i < start + count; i++) {
    const c = value.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    n = n * 10 + c;
  }
  return n;
}

/** Milliseconds of a time exactly as toISOString() writes it (`2026-01-31T23:59:59.999Z`), else undefined. */
function isCanonicalTime(value: string): number | undefined {
  if (
    value.length !== 24 ||
    value.charCodeAt(4) !== 45 || // -
    value.charCodeAt(7) !== 45 ||
    value.charCodeAt(10) !== 84 || // T
    value.charCodeAt(13) !== 58 || // :
    value.charCodeAt(16) !== 58 ||
    value.charCodeAt(19) !== 46 || // .
    value.charCodeAt(23) !== 90 // Z
  )
    return undefined;
  const year = digits(value, 0, 4);
  const month = digits(value, 5, 2);
  const day = digits(value, 8, 2);
  const hour = digits(value, 11, 2);
  const minute = digits(value, 14, 2);
  const second = digits(value, 17, 2);
  const ms = digits(value, 20, 3);
  // Date.UTC reads years 0–99 as 1900–1999.
  if (year < 100 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59 || ms < 0)
    return undefined;
  const leap = month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (day > DAYS_IN_MONTH[month - 1]! + (leap ? 1 : 0)) return undefined;
  return Date.UTC(year, month - 1, day, hour, minute, second, ms);
}

/** Resolves the time in ms when it was stored as one, else NaN. */
function writeTime(tag: number, value: unknown): number {
  if (typeof value === 'string') {
    const ms = isCanonicalTime(value);
    if (ms !== undefined) {
      writer.byte(tag | AS_TIME);
      writer.double(ms);
      return ms;
    }
  }
  writer.byte(tag | AS_JSON);
  writer.utf8(JSON.stringify(value));
  return Number.NaN;
}

/** The keys no tag carries (ttl, attachment, emergency, unknown ones, text keys holding no string), or undefined. */
function restOf(source: object, fixed: Set<string>, text: Set<string>): Record<string, unknown> | undefined {
  let rest: Record<string, unknown> | undefined;
  const keys = Object.keys(source);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const value: unknown = (source as Record<string, unknown>)[key];
    if (value === undefined || fixed.has(key) || (text.has(key) && typeof value === 'string')) continue;
    (rest ??= {})[key] = value;
  }
  return rest;
}

/** Set by encodeRecord: the record's createdAt in ms (NaN when it is not a canonical ISO time). */
export let encodedCreatedAtMs = Number.NaN;

/** The record's bytes; valid until the next call (copy them out). */
export function encodeRecord(record: NotificationRecord): Buffer {
  const scratch = writer;
  scratch.start = 0;
  scratch.pos = 0;
  encodeInto(record, scratch);
  return scratch.buf.subarray(scratch.start, scratch.pos);
}

/** Writes the record at `target.pos` (which ends after it); resolves nothing, see `encodedCreatedAtMs`. */
export function encodeInto(record: NotificationRecord, target: Writer): void {
  const previous = writer;
  writer = target;
  try {
    writeRecord(record);
  } finally {
    writer = previous;
  }
}

function writeRecord(record: NotificationRecord): void {
  const delivery = record.delivery;
  const status = STATUS_CODE.get(delivery.status);
  let flags = record.read ? F_READ : 0;
  if (record.html !== undefined) flags |= F_HTML | (record.html ? F_HTML_TRUE : 0);
  if (record.monospace !== undefined) flags |= F_MONO | (record.monospace ? F_MONO_TRUE : 0);
  writer.byte(record.priority + 2);
  writer.byte(flags);
  writer.byte(status ?? 0xff);
  writer.varint(delivery.attempts);
  for (let i = 0; i < RECORD_TEXT.length; i++) {
    const value: unknown = record[RECORD_TEXT[i]!];
    if (typeof value === 'string') writeText(T_RECORD_TEXT + i, value);
  }
  encodedCreatedAtMs = writeTime(T_CREATED, record.createdAt);
  if (record.readAt !== null) void writeTime(T_READ_AT, record.readAt);
  for (let i = 0; i < DELIVERY_TEXT.length; i++) {
    const value: unknown = delivery[DELIVERY_TEXT[i]!];
    if (typeof value === 'string') writeText(T_DELIVERY_TEXT + i, value);
  }
  for (let i = 0; i < DELIVERY_TIMES.length; i++) {
    const value = delivery[DELIVERY_TIMES[i]!];
    if (value !== undefined) void writeTime(T_DELIVERY_TIME + i, value);
  }
  const rest = restOf(record, FIXED_RECORD_KEYS, RECORD_TEXT_KEYS);
  if (rest) {
    writer.byte(T_RECORD_REST);
    writer.utf8(JSON.stringify(rest));
  }
  const deliveryRest = restOf(delivery, FIXED_DELIVERY_KEYS, DELIVERY_TEXT_KEYS);
  if (deliveryRest || status === undefined) {
    writer.byte(T_DELIVERY_REST);
    writer.utf8(JSON.stringify(status === undefined ? { ...deliveryRest, status: delivery.status } : deliveryRest));
  }
}

/** Reads what encodeRecord wrote, from `buf[start, end)`. */
export function decodeRecord(buf: Buffer, start: number, end: number): NotificationRecord {
  let pos = start;
  const varint = (): number => {
    let value = 0;
    let scale = 1;
    for (;;) {
      const b = buf[pos++]!;
      value += (b & 0x7f) * scale;
      if (b < 0x80) return value;
      scale *= 0x80;
    }
  };
  const text = (): string => {
    const length = varint();
    pos += length;
    return buf.toString('utf8', pos - length, pos);
  };
  const priority = (buf[pos++]! - 2) as Priority;
  const flags = buf[pos++]!;
  const status = STATUSES[buf[pos++]!];
  const attempts = varint();
  // Text tags hold strings (a JSON one for a lone surrogate); a time tag holds what was given (JSON when not canonical).
  const fields: { [K in (typeof RECORD_TEXT)[number]]?: string } = {};
  // The delivery's fields in the order they are written, after its status and attempts.
  const delivery: Record<string, unknown> = { status, attempts };
  let createdAt = '';
  let readAt: string | null = null;
  let rest: Record<string, unknown> | undefined;
  let deliveryRest: Record<string, unknown> | undefined;
  while (pos < end) {
    const raw = buf[pos++]!;
    const tag = raw & TAG_MASK;
    let value: string;
    if (tag === T_RECORD_REST || tag === T_DELIVERY_REST) {
      const parsed = JSON.parse(text()) as Record<string, unknown>;
      if (tag === T_RECORD_REST) rest = parsed;
      else deliveryRest = parsed;
      continue;
    }
    const isTime = tag === T_CREATED || tag === T_READ_AT || (tag >= T_DELIVERY_TIME && tag < T_DELIVERY_TIME + DELIVERY_TIMES.length);
    if (raw & AS_JSON) value = JSON.parse(text()) as string;
    else if (raw & AS_UUID && isTime) {
      value = new Date(buf.readDoubleLE(pos)).toISOString();
      pos += 8;
    } else if (raw & AS_UUID) {
      value = uuidText(buf, pos);
      pos += 16;
    } else value = text();
    if (tag === T_CREATED) createdAt = value;
    else if (tag === T_READ_AT) readAt = value;
    else if (tag >= T_DELIVERY_TIME) delivery[DELIVERY_TIMES[tag - T_DELIVERY_TIME]!] = value;
    else if (tag >= T_DELIVERY_TEXT) delivery[DELIVERY_TEXT[tag - T_DELIVERY_TEXT]!] = value;
    else fields[RECORD_TEXT[tag - T_RECORD_TEXT]!] = value;
  }
  // The bytes hold a delivery encodeRecord was given: its status from the table (or, unknown to it, in the rest), then
  // its fields in the order they are written.
  const fullDelivery = (deliveryRest === undefined ? delivery : { ...delivery, ...deliveryRest }) as unknown as Delivery;
  if (rest === undefined) return plainRecord(fields, priority, flags, readAt, createdAt, fullDelivery);
  // The documented key order, optional keys only when set (as the record was created); what no tag carries (ttl,
  // attachment, emergency, alert, keys this version does not know) comes from the rest.
  const { ttl, ...others } = rest;
  return {
    id: fields.id!,
    recipient: fields.recipient!,
    title: fields.title!,
    message: fields.message!,
    priority,
    ...(fields.sound === undefined ? {} : { sound: fields.sound }),
    ...(fields.url === undefined ? {} : { url: fields.url }),
    ...(fields.urlTitle === undefined ? {} : { urlTitle: fields.urlTitle }),
    ...((flags & F_HTML) === 0 ? {} : { html: (flags & F_HTML_TRUE) !== 0 }),
    ...((flags & F_MONO) === 0 ? {} : { monospace: (flags & F_MONO_TRUE) !== 0 }),
    ...(ttl === undefined ? {} : { ttl: ttl as number }),
    ...(fields.device === undefined ? {} : { device: fields.device }),
    ...(others as Pick<NotificationRecord, 'attachment' | 'emergency' | 'alert'>),
    // Written from a record whose read flag and time agree.
    ...({ read: (flags & F_READ) !== 0, readAt } as ReadStatus),
    createdAt,
    delivery: fullDelivery,
  };
}

/**
 * A record with nothing but tagged fields (most records), in the same key order as decodeRecord's general case, built
 * by assignment: spreading a dozen small objects per record dominated a fold of a million records.
 */
function plainRecord(
  fields: { [K in (typeof RECORD_TEXT)[number]]?: string },
  priority: Priority,
  flags: number,
  readAt: string | null,
  createdAt: string,
  delivery: Delivery,
): NotificationRecord {
  const record: Record<string, unknown> = { id: fields.id!, recipient: fields.recipient!, title: fields.title!, message: fields.message!, priority };
  if (fields.sound !== undefined) record.sound = fields.sound;
  if (fields.url !== undefined) record.url = fields.url;
  if (fields.urlTitle !== undefined) record.urlTitle = fields.urlTitle;
  if ((flags & F_HTML) !== 0) record.html = (flags & F_HTML_TRUE) !== 0;
  if ((flags & F_MONO) !== 0) record.monospace = (flags & F_MONO_TRUE) !== 0;
  if (fields.device !== undefined) record.device = fields.device;
  record.read = (flags & F_READ) !== 0;
  record.readAt = readAt;
  record.createdAt = createdAt;
  record.delivery = delivery;
  return record as unknown as NotificationRecord;
}

/** Only the id of an encoded record (its first field), without decoding the rest. */
export function decodeId(buf: Buffer, start: number): string {
  let pos = start + 3;
  while (buf[pos]! >= 0x80) pos++;
  pos++;
  const raw = buf[pos++]!;
  if (raw & AS_UUID) return uuidText(buf, pos);
  let length = 0;
  let scale = 1;
  for (;;) {
    const b = buf[pos++]!;
    length += (b & 0x7f) * scale;
    if (b < 0x80) break;
    scale *= 0x80;
  }
  const text = buf.toString('utf8', pos, pos + length);
  return raw & AS_JSON ? (JSON.parse(text) as string) : text;
}

function uuidText(buf: Buffer, pos: number): string {
  const hex = buf.toString('hex', pos, pos + 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
