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

function decodeLine(line: Buffer): JournalEntry | string {
  if (line.length < 10 || line[8] !== 0x20) return 'malformed line';
  const json = line.subarray(9);
  if (crc32(json) !== Number.parseInt(line.subarray(0, 8).toString('latin1'), 16)) return 'checksum mismatch';
  let entry: unknown;
  try {
    entry = JSON.parse(json.toString('utf8'));
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
    const decoded = decodeLine(data.subarray(offset, end));
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
