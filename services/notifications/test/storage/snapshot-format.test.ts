import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseSnapshot, readSnapshotBlocks } from '../../src/adapters/storage/snapshot-parser.js';
import type { NotificationRecord } from '../../src/domain/notification.js';
import { formatHeader, formatRecord } from '../../src/adapters/storage/yaml-snapshot-format.js';
import { makeRecord } from './make-record.js';
import { loadReferenceYaml } from './reference-yaml.js';
import { recordPerVariant } from './record-variants.js';

const records = [
  makeRecord({ title: 'plain', delivery: { status: 'pending', attempts: 0, nextAttemptAt: '2026-01-01T00:00:05.000Z' } }),
  makeRecord({ title: 'Ünïcødé ✓ "quoted" back\\slash', message: 'tab\there\nnew line \u0085 \u2028', ttl: 60, html: false }),
  makeRecord({ recipient: 'bob', priority: 2, attachment: { filename: 'x.pdf', contentType: 'application/pdf', size: 1024 } }),
];

function snapshotText(generation: number): string {
  return formatHeader('notifications.yaml.3.journal', generation, false) + records.map(formatRecord).join('');
}

describe('YAML snapshot format', () => {
  it('reads back what it writes, identically to a general YAML parser', () => {
    const text = snapshotText(3);
    expect(parseSnapshot(Buffer.from(text))).toEqual({ generation: 3, records });
    expect(loadReferenceYaml(text)).toEqual({ format: 1, generation: 3, notifications: records });
  });

  it('reads back the same JSON, byte for byte, for a record of every delivery status and alarm state', () => {
    const variants = recordPerVariant();
    const text = formatHeader('notifications.yaml.1.journal', 1, false) + variants.map(formatRecord).join('');
    expect(JSON.stringify(parseSnapshot(Buffer.from(text)).records)).toBe(JSON.stringify(variants));
    expect(JSON.stringify((loadReferenceYaml(text) as { notifications: unknown[] }).notifications)).toBe(JSON.stringify(variants));
  });

  it('reads the same records through the general parser once the file leaves the fast layout', () => {
    const edited = snapshotText(4).replace('    title: "plain"', '    title: plain   # edited by hand');
    expect(parseSnapshot(Buffer.from(edited))).toEqual({ generation: 4, records });
  });

  it('writes an empty history as an empty list that both parsers read', () => {
    const text = formatHeader('notifications.yaml.1.journal', 1, true);
    expect(parseSnapshot(Buffer.from(text))).toEqual({ generation: 1, records: [] });
    expect(loadReferenceYaml(text)).toMatchObject({ notifications: [] });
  });

  it('names the line of a duplicate id', () => {
    const text = formatHeader('j', 1, false) + formatRecord(records[0]!) + formatRecord(records[0]!);
    const secondLine = (formatHeader('j', 1, false) + formatRecord(records[0]!)).split('\n').length;
    expect(() => parseSnapshot(Buffer.from(text))).toThrow(expect.objectContaining({ line: secondLine, message: `duplicate id ${records[0]!.id}` }));
  });

  it('reads the same records block by block, whatever the block size (lines and multi-byte characters split across blocks)', async () => {
    const data = Buffer.from(snapshotText(5));
    for (const size of [1, 3, 7, 64, 1000, data.length + 1]) {
      async function* blocks() {
        for (let i = 0; i < data.length; i += size) yield data.subarray(i, i + size);
      }
      const got: NotificationRecord[] = [];
      let restarts = 0;
      const read = await readSnapshotBlocks(blocks(), () => Promise.resolve(data), { record: (r) => got.push(r), restart: () => restarts++ });
      expect({ read, got, restarts }).toEqual({ read: { generation: 5, bytes: data.length, crc: crc32(data) }, got: records, restarts: 0 });
    }
  });

  it('starts over with the general parser, whole, when a block leaves the fast layout', async () => {
    const data = Buffer.from(snapshotText(6).replace('    title: "plain"', '    title: plain   # edited by hand'));
    async function* blocks() {
      for (let i = 0; i < data.length; i += 100) yield data.subarray(i, i + 100);
    }
    let got: NotificationRecord[] = [];
    const read = await readSnapshotBlocks(blocks(), () => Promise.resolve(data), { record: (r) => got.push(r), restart: () => (got = []) });
    expect(read.generation).toBe(6);
    expect(got).toEqual(records);
  });
});
