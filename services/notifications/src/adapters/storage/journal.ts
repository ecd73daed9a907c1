import { crc32 } from 'node:zlib';
import type { NotificationRecord } from '../../domain/notification.js';
import { describeRecordProblem } from './record-shape.js';

/** One change in the journal: the whole new record, or the id of a removed one (replaying either is idempotent). */
export type JournalEntry = { put: NotificationRecord } | { del: string };

/** What a journal file holds: its valid entries, and the byte length they end at (a torn tail is past it). */
export interface JournalContent {
  entries: JournalEntry[];
  validBytes: number;
  tornBytes: number;
}

/** A journal line that cannot be a torn tail; `line` is 1-based. */
export class JournalCorruptError extends Error {
  constructor(
    readonly line: number,
    reason: string,
  ) {
    super(reason);
  }
}

const NEWLINE = 0x0a;

/** `<crc32 of the JSON, 8 hex digits> <JSON>\n`: a partial line from a crash fails the checksum or lacks the newline. */
export function encodeJournalEntry(entry: JournalEntry): string {
  // Same text as JSON.stringify(entry), without stringify walking the wrapper object for every create.
  const json = 'put' in entry ? `{"put":${JSON.stringify(entry.put)}}` : JSON.stringify(entry);
  return `${crc32(json).toString(16).padStart(8, '0')} ${json}\n`;
}

/** The 8 lowercase hex digits at `start` (how encodeJournalEntry writes a checksum), or -1. */
function readCrc(data: Buffer, start: number): number {
  let value = 0;
  for (let i = start; i < start + 8; i++) {
    const c = data[i]!;
    const digit = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

// The line is data[start, end): read in place, without a Buffer view of it.
function decodeLine(data: Buffer, start: number, end: number): JournalEntry | string {
  if (end - start < 10 || data[start + 8] !== 0x20) return 'malformed line';
  if (crc32(data.subarray(start + 9, end)) !== readCrc(data, start)) return 'checksum mismatch';
  let entry: unknown;
  try {
    entry = JSON.parse(data.toString('utf8', start + 9, end));
  } catch {
    return 'invalid JSON';
  }
  if (typeof entry === 'object' && entry !== null) {
    if ('del' in entry && typeof entry.del === 'string') return { del: entry.del };
    if ('put' in entry) {
      const problem = describeRecordProblem(entry.put);
      return problem ?? { put: entry.put as NotificationRecord };
    }
  }
  return 'unknown entry';
}

/**
 * Parses a journal. Invalid lines at the end are a write torn by a crash (never acknowledged) and are dropped;
 * an invalid line followed by a valid one is damage, not a crash, and raises JournalCorruptError.
 */
export function parseJournal(data: Buffer, onEntry?: (entry: JournalEntry) => void): JournalContent {
  const entries: JournalEntry[] = [];
  let offset = 0;
  let lineNumber = 0;
  let firstBad: { line: number; offset: number; reason: string } | undefined;
  while (offset < data.length) {
    lineNumber++;
    const end = data.indexOf(NEWLINE, offset);
    if (end === -1) {
      firstBad ??= { line: lineNumber, offset, reason: 'incomplete last line' };
      break;
    }
    const decoded = decodeLine(data, offset, end);
    if (typeof decoded === 'string') {
      firstBad ??= { line: lineNumber, offset, reason: decoded };
    } else if (firstBad !== undefined) {
      throw new JournalCorruptError(firstBad.line, `${firstBad.reason}, followed by valid entries`);
    } else if (onEntry) {
      onEntry(decoded);
    } else {
      entries.push(decoded);
    }
    offset = end + 1;
  }
  const validBytes = firstBad?.offset ?? data.length;
  return { entries, validBytes, tornBytes: data.length - validBytes };
}
