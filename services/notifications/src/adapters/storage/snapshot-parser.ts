import { isMap, isSeq, LineCounter, parseDocument, visit } from 'yaml';
import type { NotificationRecord } from '../../domain/notification.js';
import { describeRecordProblem } from './record-shape.js';
import { SNAPSHOT_FORMAT } from './yaml-snapshot-format.js';

/** The content of a snapshot file: the journal generation it is current up to, and its records in file order. */
export interface LoadedSnapshot {
  generation: number;
  records: NotificationRecord[];
}

/** Why a snapshot cannot be loaded; `line` is 1-based. */
export class SnapshotError extends Error {
  constructor(
    readonly line: number,
    reason: string,
  ) {
    super(reason);
  }
}

interface RawSnapshot {
  header: Record<string, unknown>;
  items: Array<{ value: unknown; line: number }>;
}

const FIELD = /^( *)(- )?([A-Za-z_][A-Za-z0-9_]*):(?: (.*))?$/;
const INTEGER = /^-?(?:0|[1-9][0-9]*)$/;
const NOT_FAST = Symbol('not fast');

// Only the values our writer emits; anything else (plain strings, comments after values…) goes to the full parser.
function parseFastValue(raw: string): unknown {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  if (raw === 'null') return null;
  if (INTEGER.test(raw)) return Number(raw);
  const first = raw[0];
  if (first !== '"' && first !== '[' && first !== '{') return NOT_FAST;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return NOT_FAST;
  }
}

/**
 * Reads the layout our writer produces (one `key: <JSON value>` per line) in one pass, several times faster than a
 * general YAML parser; returns undefined at the first line outside that layout so the caller uses the full parser.
 */
function parseFast(text: string): RawSnapshot | undefined {
  const header: Record<string, unknown> = {};
  const items: RawSnapshot['items'] = [];
  let inItems = false;
  let current: Record<string, unknown> | undefined;
  let nestedKey: string | undefined;
  let nested: Record<string, unknown> | undefined;
  let lineNumber = 0;
  for (let pos = 0; pos < text.length; ) {
    let end = text.indexOf('\n', pos);
    if (end === -1) end = text.length;
    const line = text.slice(pos, end);
    pos = end + 1;
    lineNumber++;
    const trimmed = line.trimStart();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const match = FIELD.exec(line);
    if (match === null) return undefined;
    const [, spaces, dash, key, raw] = match as unknown as [string, string, string | undefined, string, string | undefined];
    const indent = spaces.length + (dash === undefined ? 0 : 2);
    const value = raw === undefined ? undefined : parseFastValue(raw);
    if (value === NOT_FAST) return undefined;
    if (indent === 0) {
      if (key in header || (raw === undefined && key !== 'notifications')) return undefined;
      header[key] = raw === undefined ? [] : value;
      inItems = raw === undefined;
      continue;
    }
    if (!inItems) return undefined;
    if (dash !== undefined && indent === 4) {
      current = {};
      items.push({ value: current, line: lineNumber });
    } else if (dash !== undefined) {
      return undefined;
    }
    if (indent === 4 && current !== undefined) {
      if (key in current) return undefined;
      current[key] = raw === undefined ? null : value;
      nestedKey = raw === undefined ? key : undefined;
      nested = undefined;
    } else if (indent === 6 && current !== undefined && nestedKey !== undefined) {
      if (nested === undefined) current[nestedKey] = nested = {};
      if (key in nested) return undefined;
      nested[key] = value ?? null;
    } else {
      return undefined;
    }
  }
  if (Array.isArray(header.notifications)) header.notifications = items;
  return { header, items };
}

/** Any valid YAML, with aliases and unknown tags refused (a "billion laughs" file fails before anything expands). */
function parseGeneral(text: string): RawSnapshot {
  const lineCounter = new LineCounter();
  const lineOf = (offset: number | undefined): number => lineCounter.linePos(offset ?? 0).line;
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, schema: 'core' });
  const problem = doc.errors[0] ?? doc.warnings[0];
  if (problem !== undefined) throw new SnapshotError(problem.linePos?.[0].line ?? 1, problem.message.split('\n')[0]!);
  visit(doc, {
    Alias(_, node) {
      throw new SnapshotError(lineOf(node.range?.[0]), 'YAML aliases (*name) are not allowed in the history');
    },
  });
  if (!isMap(doc.contents)) throw new SnapshotError(1, 'expected a mapping with a "notifications" list');
  const header = doc.toJS({ maxAliasCount: 0 }) as Record<string, unknown>;
  const list = doc.contents.get('notifications', true);
  if (list !== undefined && !isSeq(list)) throw new SnapshotError(lineOf(doc.contents.range?.[0]), '"notifications" must be a list');
  const nodes = list?.items ?? [];
  const values = (header.notifications ?? []) as unknown[];
  return { header, items: values.map((value, i) => ({ value, line: lineOf((nodes[i] as { range?: number[] }).range?.[0]) })) };
}

/** Parses and checks a snapshot; throws SnapshotError naming the line of the first problem. */
export function parseSnapshot(text: string): LoadedSnapshot {
  const { header, items } = parseFast(text) ?? parseGeneral(text);
  if (header.format !== undefined && header.format !== SNAPSHOT_FORMAT) throw new SnapshotError(1, `unsupported format ${String(header.format)}`);
  const generation = header.generation ?? 1;
  if (!Number.isInteger(generation) || (generation as number) < 1) throw new SnapshotError(1, 'generation must be a positive integer');
  const seen = new Set<string>();
  const records = items.map(({ value, line }) => {
    const problem = describeRecordProblem(value);
    if (problem !== undefined) throw new SnapshotError(line, problem);
    const record = value as NotificationRecord;
    if (seen.has(record.id)) throw new SnapshotError(line, `duplicate id ${record.id}`);
    seen.add(record.id);
    return record;
  });
  return { generation: generation as number, records };
}
