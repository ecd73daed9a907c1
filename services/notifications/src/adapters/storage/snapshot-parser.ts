import { crc32 } from 'node:zlib';
import { isMap, isSeq, LineCounter, parseDocument, visit } from 'yaml';
import type { NotificationRecord } from '../../domain/notification.js';
import { FastSnapshotReader, type RawSnapshot } from './fast-snapshot.parser.js';
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

function checkedTaker(sink: SnapshotSink): (value: unknown, line: number) => void {
  return (value, line) => {
    const problem = describeRecordProblem(value);
    if (problem !== undefined) throw new SnapshotError(line, problem);
    sink.record(value as NotificationRecord, line);
  };
}

function generationOf(header: Record<string, unknown>): number {
  if (header.format !== undefined && header.format !== SNAPSHOT_FORMAT) throw new SnapshotError(1, `unsupported format ${String(header.format)}`);
  const generation = header.generation ?? 1;
  if (!Number.isInteger(generation) || (generation as number) < 1) throw new SnapshotError(1, 'generation must be a positive integer');
  return generation as number;
}

function readGeneral(data: Buffer, take: (value: unknown, line: number) => void): Record<string, unknown> {
  const general = parseGeneral(data.toString('utf8'));
  for (const { value, line } of general.items) take(value, line);
  return general.header;
}

/** Reads and checks a snapshot in memory, handing over each record as it is parsed; resolves the generation. */
export function readSnapshot(data: Buffer, sink: SnapshotSink): number {
  const take = checkedTaker(sink);
  const reader = new FastSnapshotReader(take);
  if (reader.feed(data) && reader.end()) return generationOf(reader.header);
  sink.restart();
  return generationOf(readGeneral(data, take));
}

/**
 * Reads and checks a snapshot block by block, handing over each record as soon as it is parsed: a large file is
 * never in memory whole, nor its records as objects. A file outside the fast layout (edited by hand) is read whole
 * by the full parser after `restart`. Throws SnapshotError naming the line of the first problem.
 */
export async function readSnapshotBlocks(
  blocks: AsyncIterable<Buffer>,
  readWhole: () => Promise<Buffer>,
  sink: SnapshotSink,
): Promise<{ generation: number; bytes: number; crc: number }> {
  const take = checkedTaker(sink);
  const reader = new FastSnapshotReader(take);
  let fast = true;
  let bytes = 0;
  let crc = 0;
  for await (const block of blocks) {
    bytes += block.length;
    crc = crc32(block, crc);
    if (!reader.feed(block)) {
      fast = false;
      break;
    }
  }
  if (fast && reader.end()) return { generation: generationOf(reader.header), bytes, crc };
  sink.restart();
  const data = await readWhole();
  return { generation: generationOf(readGeneral(data, take)), bytes: data.length, crc: crc32(data) };
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
