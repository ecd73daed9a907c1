/** A snapshot as parsed, before its records are checked: top-level fields and the items with their lines. */
export interface RawSnapshot {
  header: Record<string, unknown>;
  items: Array<{ value: unknown; line: number }>;
}

const NOT_FAST = Symbol('not fast');
const NEWLINE = 0x0a;
const SPACE = 0x20;
const DASH = 0x2d;
const COLON = 0x3a;
const HASH = 0x23;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const ZERO = 0x30;
const NINE = 0x39;

function isKeyByte(byte: number, first: boolean): boolean {
  return (byte >= 0x61 && byte <= 0x7a) || (byte >= 0x41 && byte <= 0x5a) || byte === 0x5f || (!first && byte >= ZERO && byte <= NINE);
}

// The same dozen keys repeat on every record: recognise them from the bytes instead of decoding a string each time.
class KeyCache {
  private readonly keys = new Map<number, string>();

  read(data: Buffer, start: number, end: number, hash: number): string {
    const cached = this.keys.get(hash);
    if (cached !== undefined && cached.length === end - start) {
      let same = true;
      for (let i = 0; same && i < cached.length; i++) same = cached.charCodeAt(i) === data[start + i];
      if (same) return cached;
    }
    const key = data.toString('latin1', start, end);
    this.keys.set(hash, key);
    return key;
  }
}

function isWord(data: Buffer, start: number, end: number, word: string): boolean {
  if (end - start !== word.length) return false;
  for (let i = 0; i < word.length; i++) if (data[start + i] !== word.charCodeAt(i)) return false;
  return true;
}

function parseInteger(data: Buffer, start: number, end: number): number | typeof NOT_FAST {
  const negative = data[start] === DASH;
  const digits = negative ? start + 1 : start;
  if (digits === end || end - digits > 15 || (data[digits] === ZERO && end - digits > 1)) return NOT_FAST;
  let value = 0;
  for (let i = digits; i < end; i++) {
    const byte = data[i]!;
    if (byte < ZERO || byte > NINE) return NOT_FAST;
    value = value * 10 + byte - ZERO;
  }
  return negative ? -value : value;
}

// Only the values our writer emits; anything else (plain strings, comments after values…) goes to the full parser.
function parseValue(data: Buffer, start: number, end: number): unknown {
  const first = data[start];
  if (first === QUOTE && end - start >= 2 && data[end - 1] === QUOTE) {
    let ascii = true;
    let i = start + 1;
    for (; i < end - 1; i++) {
      const byte = data[i]!;
      if (byte === QUOTE || byte === BACKSLASH) break;
      if (byte >= 0x80) ascii = false;
    }
    // No escapes and no inner quote: the inside is the value, in JSON and in YAML alike. Decoding from the
    // buffer gives compact strings that do not pin the whole file in memory.
    if (i === end - 1) return data.toString(ascii ? 'latin1' : 'utf8', start + 1, end - 1);
  }
  if (isWord(data, start, end, 'true')) return true;
  if (isWord(data, start, end, 'false')) return false;
  if (isWord(data, start, end, 'null')) return null;
  if (first === DASH || (first !== undefined && first >= ZERO && first <= NINE)) return parseInteger(data, start, end);
  if (first !== QUOTE && first !== 0x5b && first !== 0x7b) return NOT_FAST;
  try {
    return JSON.parse(data.toString('utf8', start, end)) as unknown;
  } catch {
    return NOT_FAST;
  }
}

/**
 * Reads the layout our writer produces (`key: <JSON value>` per line, records as `  - ` items, one nested level)
 * straight from the bytes, several times faster than a general YAML parser. Returns undefined at the first line
 * outside that layout, and the caller falls back to the full parser.
 */
export function parseFastSnapshot(data: Buffer): RawSnapshot | undefined {
  const items: RawSnapshot['items'] = [];
  const reader = new FastSnapshotReader((value, line) => items.push({ value, line }));
  return reader.feed(data) && reader.end() ? { header: reader.header, items } : undefined;
}

/**
 * The fast layout read block by block (the blocks of a file, in order), handing each record to `onItem` once its last
 * line is read: neither the whole file nor all its records are ever in memory at once. `feed` and `end` resolve false
 * where the layout ends: the caller must then forget the items it was given and use the full parser.
 */
export class FastSnapshotReader {
  readonly header: Record<string, unknown> = {};
  private inItems = false;
  private current: Record<string, unknown> | undefined;
  private currentLine = 0;
  private nestedKey: string | undefined;
  private nested: Record<string, unknown> | undefined;
  private lineNumber = 0;
  private readonly keys = new KeyCache();
  private carry: Buffer | undefined;

  constructor(private readonly onItem: (value: unknown, line: number) => void) {}

  feed(block: Buffer): boolean {
    const data = this.carry === undefined ? block : Buffer.concat([this.carry, block]);
    const lastNewline = data.lastIndexOf(NEWLINE);
    if (lastNewline === -1) {
      this.carry = Buffer.from(data);
      return true;
    }
    // The partial last line is copied, so the block it came from is not kept alive.
    this.carry = lastNewline + 1 < data.length ? Buffer.from(data.subarray(lastNewline + 1)) : undefined;
    return this.lines(data, lastNewline + 1);
  }

  end(): boolean {
    const rest = this.carry;
    this.carry = undefined;
    if (rest !== undefined && !this.lines(rest, rest.length)) return false;
    this.flush();
    return true;
  }

  private flush(): void {
    if (this.current !== undefined) this.onItem(this.current, this.currentLine);
    this.current = undefined;
  }

  private lines(data: Buffer, length: number): boolean {
    for (let pos = 0; pos < length;) {
      let end = data.indexOf(NEWLINE, pos);
      if (end === -1 || end > length) end = length;
      const ok = this.line(data, pos, end);
      if (!ok) return false;
      pos = end + 1;
    }
    return true;
  }

  private line(data: Buffer, lineStart: number, end: number): boolean {
    this.lineNumber++;
    let i = lineStart;
    while (data[i] === SPACE) i++;
    if (i === end || data[i] === HASH) return true;
    const dash = data[i] === DASH && data[i + 1] === SPACE;
    const indent = i - lineStart + (dash ? 2 : 0);
    if (dash) i += 2;
    const keyStart = i;
    let hash = 0;
    while (i < end && isKeyByte(data[i]!, i === keyStart)) hash = (hash * 31 + data[i++]!) | 0;
    if (i === keyStart || data[i] !== COLON) return false;
    const key = this.keys.read(data, keyStart, i, hash);
    const hasValue = i + 1 < end;
    if (hasValue && data[i + 1] !== SPACE) return false;
    const value = hasValue ? parseValue(data, i + 2, end) : undefined;
    if (value === NOT_FAST) return false;
    if (indent === 0) {
      if (key in this.header || (!hasValue && key !== 'notifications')) return false;
      this.flush();
      this.header[key] = hasValue ? value : true;
      this.inItems = !hasValue;
      return true;
    }
    if (!this.inItems || (dash && indent !== 4)) return false;
    if (dash) {
      this.flush();
      this.current = {};
      this.currentLine = this.lineNumber;
    }
    const current = this.current;
    if (indent === 4 && current !== undefined) {
      if (key in current) return false;
      current[key] = hasValue ? value : null;
      this.nestedKey = hasValue ? undefined : key;
      this.nested = undefined;
    } else if (indent === 6 && current !== undefined && this.nestedKey !== undefined) {
      if (this.nested === undefined) current[this.nestedKey] = this.nested = {};
      if (key in this.nested) return false;
      this.nested[key] = value ?? null;
    } else {
      return false;
    }
    return true;
  }
}
