import { isMap, isSeq, LineCounter, parseDocument, visit } from 'yaml';
import type { NotificationRecord } from '../../domain/notification.js';
import { streamFastSnapshot, type RawSnapshot } from './fast-snapshot.parser.js';
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

/** Where readSnapshot hands the checked records: `restart` means forget those given so far (the file is re-read). */
export interface SnapshotSink {
  record(record: NotificationRecord, line: number): void;
  restart(): void;
}

/**
 * Reads and checks a snapshot, handing over each record as soon as it is parsed (so a large file is never held as
 * objects all at once); throws SnapshotError naming the line of the first problem. Resolves the generation.
 */
export function readSnapshot(data: Buffer, sink: SnapshotSink): number {
  const take = (value: unknown, line: number): void => {
    const problem = describeRecordProblem(value);
    if (problem !== undefined) throw new SnapshotError(line, problem);
    sink.record(value as NotificationRecord, line);
  };
  let header = streamFastSnapshot(data, take);
  if (header === undefined) {
    sink.restart();
    const general = parseGeneral(data.toString('utf8'));
    for (const { value, line } of general.items) take(value, line);
    header = general.header;
  }
  if (header.format !== undefined && header.format !== SNAPSHOT_FORMAT) throw new SnapshotError(1, `unsupported format ${String(header.format)}`);
  const generation = header.generation ?? 1;
  if (!Number.isInteger(generation) || (generation as number) < 1) throw new SnapshotError(1, 'generation must be a positive integer');
  return generation as number;
}

/** Parses and checks a whole snapshot into memory (small files, tests); see readSnapshot. */
export function parseSnapshot(data: Buffer): LoadedSnapshot {
  let records: NotificationRecord[] = [];
  let seen = new Set<string>();
  const generation = readSnapshot(data, {
    record(record, line) {
      if (seen.has(record.id)) throw new SnapshotError(line, `duplicate id ${record.id}`);
      seen.add(record.id);
      records.push(record);
    },
    restart() {
      records = [];
      seen = new Set();
    },
  });
  return { generation, records };
}
