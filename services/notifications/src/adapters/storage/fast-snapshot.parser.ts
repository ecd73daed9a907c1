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
  const header = streamFastSnapshot(data, (value, line) => items.push({ value, line }));
  return header === undefined ? undefined : { header, items };
}

/**
 * parseFastSnapshot, handing each record to `onItem` once its last line is read instead of keeping them all (a
 * million parsed records at once would fill the heap). Returns the top-level fields, or undefined where the layout
 * ends: the caller must then forget the items it was given and use the full parser.
 */
export function streamFastSnapshot(data: Buffer, onItem: (value: unknown, line: number) => void): Record<string, unknown> | undefined {
  const header: Record<string, unknown> = {};
  let inItems = false;
  let current: Record<string, unknown> | undefined;
  let currentLine = 0;
  const flush = (): void => {
    if (current !== undefined) onItem(current, currentLine);
    current = undefined;
  };
  let nestedKey: string | undefined;
  let nested: Record<string, unknown> | undefined;
  let lineNumber = 0;
  const keys = new KeyCache();
  for (let pos = 0; pos < data.length; ) {
    let end = data.indexOf(NEWLINE, pos);
    if (end === -1) end = data.length;
    const lineStart = pos;
    pos = end + 1;
    lineNumber++;
    let i = lineStart;
    while (data[i] === SPACE) i++;
    if (i === end || data[i] === HASH) continue;
    const dash = data[i] === DASH && data[i + 1] === SPACE;
    const indent = i - lineStart + (dash ? 2 : 0);
    if (dash) i += 2;
    const keyStart = i;
    let hash = 0;
    while (i < end && isKeyByte(data[i]!, i === keyStart)) hash = (hash * 31 + data[i++]!) | 0;
    if (i === keyStart || data[i] !== COLON) return undefined;
    const key = keys.read(data, keyStart, i, hash);
    const hasValue = i + 1 < end;
    if (hasValue && data[i + 1] !== SPACE) return undefined;
    const value = hasValue ? parseValue(data, i + 2, end) : undefined;
    if (value === NOT_FAST) return undefined;
    if (indent === 0) {
      if (key in header || (!hasValue && key !== 'notifications')) return undefined;
      flush();
      header[key] = hasValue ? value : true;
      inItems = !hasValue;
      continue;
    }
    if (!inItems || (dash && indent !== 4)) return undefined;
    if (dash) {
      flush();
      current = {};
      currentLine = lineNumber;
    }
    if (indent === 4 && current !== undefined) {
      if (key in current) return undefined;
      current[key] = hasValue ? value : null;
      nestedKey = hasValue ? undefined : key;
      nested = undefined;
    } else if (indent === 6 && current !== undefined && nestedKey !== undefined) {
      if (nested === undefined) current[nestedKey] = nested = {};
      if (key in nested) return undefined;
      nested[key] = value ?? null;
    } else {
      return undefined;
    }
  }
  flush();
  return header;
}
