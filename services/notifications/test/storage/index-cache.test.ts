import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cachePath } from '../../src/adapters/storage/index-cache.js';
import { YamlNotificationRepository } from '../../src/adapters/storage/yaml-notification.repository.js';
import { readSince, UNREAD, type NotificationRecord } from '../../src/domain/notification.js';
import { makeRecord } from './make-record.js';
import { makeTempDir, openRepository } from './storage-harness.js';

/** A history folded on close (so a cache is written), with read, unread, pending and ringing records of two recipients. */
async function foldedHistory() {
  const path = join(await makeTempDir(), 'notifications.yaml');
  const repo = new YamlNotificationRepository(path);
  await repo.open();
  const records: NotificationRecord[] = [];
  for (let i = 0; i < 40; i++) {
    const record = makeRecord({
      title: `title ${i}`,
      recipient: i % 2 ? 'alice' : 'bob ✓',
      ...(i % 3 === 0 ? readSince('2026-04-01T00:00:00.000Z') : UNREAD),
      ...(i % 7 === 0 ? { delivery: { status: 'pending', attempts: 1, nextAttemptAt: '2026-04-01T00:00:05.000Z' } } : {}),
      ...(i % 11 === 0 ? { priority: 2, emergency: { retry: 30, expire: 60 }, delivery: { status: 'sent', attempts: 1, receipt: 'r'.repeat(30) } } : {}),
    });
    records.push(record);
    await repo.insert(record);
  }
  await repo.close();
  return { path, records };
}

function logged(path: string) {
  const lines: string[] = [];
  return { lines, options: { log: (_level: string, message: string) => void lines.push(message) } as const, path };
}

describe('index cache', () => {
  it('is written with each fold and gives back exactly the same history on the next start, without parsing the YAML', async () => {
    const { path, records } = await foldedHistory();
    const log = logged(path);
    const fromCache = await openRepository(path, log.options);

    expect(log.lines.filter((l) => l.startsWith('Parsed'))).toEqual([]);
    for (const record of records) expect(await fromCache.get(record.id)).toEqual(record);
    for (const recipient of ['alice', 'bob ✓']) {
      const page = await fromCache.list(recipient, { limit: 100 });
      expect(page.items.map((r) => r.id)).toEqual(
        records
          .filter((r) => r.recipient === recipient)
          .reverse()
          .map((r) => r.id),
      );
      expect(page.unread).toBe(records.filter((r) => r.recipient === recipient && !r.read).length);
    }
    expect((await fromCache.pending()).map((r) => r.id).sort()).toEqual(
      records
        .filter((r) => r.delivery.status === 'pending')
        .map((r) => r.id)
        .sort(),
    );
    expect((await fromCache.ringing()).map((r) => r.id).sort()).toEqual(
      records
        .filter((r) => r.priority === 2)
        .map((r) => r.id)
        .sort(),
    );

    // Changes after loading from the cache are kept like any other.
    const later = makeRecord({ recipient: 'alice' });
    await fromCache.insert(later);
    await fromCache.update(records[1]!.id, { read: true, readAt: '2026-05-01T00:00:00.000Z' });
    await fromCache.remove(records[3]!.id);
    await fromCache.close();
    const again = await openRepository(path);
    expect(await again.get(later.id)).toEqual(later);
    expect((await again.get(records[1]!.id))?.read).toBe(true);
    expect(await again.get(records[3]!.id)).toBeUndefined();
  });

  it('is not used for a snapshot edited by hand (same size), a damaged cache, or one that cannot be read: the YAML is parsed', async () => {
    const { path, records } = await foldedHistory();
    const text = await readFile(path, 'utf8');
    const edited = text.replace(`"${records[0]!.title}"`, `"${records[0]!.title.replace(/./, 'X')}"`);
    expect(edited.length).toBe(text.length);
    await writeFile(path, edited);
    const log = logged(path);
    const repo = await openRepository(path, log.options);
    expect(log.lines).toContain(`Parsed ${path}: the index cache was made from another snapshot`);
    expect((await repo.get(records[0]!.id))?.title).toBe(records[0]!.title.replace(/./, 'X'));
    await repo.close();

    // The close folded again: a fresh cache. Damage one byte of it.
    const cache = await readFile(cachePath(path));
    cache[cache.length - 10] = cache[cache.length - 10]! ^ 0xff;
    await writeFile(cachePath(path), cache);
    const damaged = logged(path);
    const reopened = await openRepository(path, damaged.options);
    expect(damaged.lines).toContain(`Parsed ${path}: the index cache is damaged (checksum)`);
    expect(await reopened.get(records[5]!.id)).toEqual(records[5]);
  });

  it('makes a fresh cache right after parsing a snapshot edited by hand, so the start after uses it again', async () => {
    const { path, records } = await foldedHistory();
    await writeFile(path, (await readFile(path, 'utf8')).replace('"title 2"', '"edited by hand"'));
    const first = logged(path);
    await (await openRepository(path, first.options)).close();
    const second = logged(path);
    const repo = await openRepository(path, second.options);
    expect(first.lines.some((l) => l.startsWith('Parsed'))).toBe(true);
    expect(second.lines.filter((l) => l.startsWith('Parsed'))).toEqual([]);
    expect((await repo.get(records[2]!.id))?.title).toBe('edited by hand');
  });
});
