import { appendFile, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { within } from '@homeops/test-kit';
import { describe, expect, it } from 'vitest';
import { encodeJournalEntry } from '../../src/adapters/storage/journal.js';
import { YamlNotificationRepository } from '../../src/adapters/storage/yaml-notification.repository.js';
import { makeRecord } from './make-record.js';
import { makeTempDir, openRepository } from './storage-harness.js';

async function historyWith(count: number, options: { fold: boolean }): Promise<{ dir: string; path: string; ids: string[] }> {
  const dir = await makeTempDir();
  const path = join(dir, 'notifications.yaml');
  const repo = new YamlNotificationRepository(path, { compactOnClose: options.fold });
  await repo.open();
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const record = makeRecord();
    await repo.insert(record);
    ids.push(record.id);
  }
  await repo.close();
  return { dir, path, ids };
}

async function snapshotOfDir(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const name of await readdir(dir)) files[name] = (await readFile(join(dir, name))).toString('base64');
  return files;
}

describe('YamlNotificationRepository with a torn journal tail', () => {
  it('drops a partial last line from a crash and keeps appending after the valid part', async () => {
    const { path, ids } = await historyWith(3, { fold: false });
    const journal = `${path}.1.journal`;
    await appendFile(journal, '0badc0de {"put":{"id":"half-writ');
    const repo = await openRepository(path, { compactOnClose: false });
    expect((await repo.stats()).records).toBe(3);
    const extra = makeRecord();
    await repo.insert(extra);
    await repo.close();
    const reopened = await openRepository(path);
    expect(await Promise.all([...ids, extra.id].map((id) => reopened.get(id)))).not.toContain(undefined);
    expect((await reopened.stats()).records).toBe(4);
  });

  it('drops a complete last line whose checksum does not match', async () => {
    const { path } = await historyWith(2, { fold: false });
    const journal = `${path}.1.journal`;
    const lines = (await readFile(journal, 'utf8')).split('\n');
    lines[1] = lines[1]!.replace('"alice"', '"mallory"');
    await writeFile(journal, lines.join('\n'));
    const repo = await openRepository(path);
    expect((await repo.stats()).records).toBe(1);
    expect((await repo.list('mallory', { limit: 5 })).total).toBe(0);
  });
});

describe('YamlNotificationRepository after an interrupted fold', () => {
  it('ignores and removes journals already in the snapshot and a half-written temp file', async () => {
    const { dir, path, ids } = await historyWith(2, { fold: true });
    const generation = Number(/^generation: (\d+)$/m.exec(await readFile(path, 'utf8'))![1]);
    const folded = makeRecord({ title: 'already folded, then removed' });
    await writeFile(join(dir, `notifications.yaml.${generation - 1}.journal`), encodeJournalEntry({ put: folded }));
    await writeFile(`${path}.tmp`, 'notifications:\n  - id: "half');
    const repo = await openRepository(path);
    expect(await repo.get(folded.id)).toBeUndefined();
    expect(await Promise.all(ids.map((id) => repo.get(id)))).not.toContain(undefined);
    expect((await readdir(dir)).sort()).toEqual([
      'notifications.yaml',
      `notifications.yaml.${generation}.journal`,
      'notifications.yaml.cache',
      'notifications.yaml.lock',
    ]);
  });
});

describe('YamlNotificationRepository with a damaged file', () => {
  it('refuses to open a hand-broken snapshot, naming file and line, and leaves every file byte-for-byte untouched', async () => {
    const { dir, path } = await historyWith(3, { fold: true });
    const lines = (await readFile(path, 'utf8')).split('\n');
    const broken = lines.findIndex((line) => line.startsWith('    title:'), 20);
    lines[broken] = '    title: "unterminated';
    await writeFile(path, lines.join('\n'));
    const before = await snapshotOfDir(dir);
    const repo = new YamlNotificationRepository(path);
    const error = await repo.open().then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toContain(path);
    expect(error?.message).toMatch(new RegExp(`line (${broken + 1}|${broken + 2})\\b`));
    expect(await snapshotOfDir(dir)).toEqual(before);
    await expect(repo.close()).resolves.toBeUndefined();
  });

  it('refuses a record with an invalid field and names the line of that record', async () => {
    const { path } = await historyWith(2, { fold: true });
    const text = await readFile(path, 'utf8');
    const second = text.lastIndexOf('  - id:');
    await writeFile(path, text.slice(0, second) + text.slice(second).replace('priority: 0', 'priority: 7'));
    const line = text.slice(0, second).split('\n').length;
    await expect(new YamlNotificationRepository(path).open()).rejects.toThrow(`${path}, line ${line}: priority must be an integer from -2 to 2`);
  });

  it('refuses a journal damaged in the middle (not a crash) and names its line', async () => {
    const { path } = await historyWith(3, { fold: false });
    const journal = `${path}.1.journal`;
    const lines = (await readFile(journal, 'utf8')).split('\n');
    lines[1] = lines[1]!.slice(0, 40);
    await writeFile(journal, lines.join('\n'));
    const before = await readFile(journal);
    await expect(new YamlNotificationRepository(path).open()).rejects.toThrow(`${journal}, line 2`);
    expect(await readFile(journal)).toEqual(before);
  });

  it('loads a valid hand-edited file in any YAML style (comments, plain scalars, flow mappings)', async () => {
    const path = join(await makeTempDir(), 'notifications.yaml');
    await writeFile(
      path,
      [
        '# edited by hand',
        'notifications:',
        '- id: hand-1',
        '  recipient: alice   # the owner',
        '  title: Door',
        '  message: |',
        '    two',
        '    lines',
        '  priority: 1',
        '  read: no',
        '  readAt: ~',
        '  createdAt: 2026-01-01T00:00:00Z',
        '  delivery: { status: skipped, attempts: 0 }',
        '',
      ].join('\n'),
    );
    await expect(openRepository(path)).rejects.toThrow(`${path}, line 3: read must be true or false`);
    // Read and its time are one fact: a hand edit that sets one without the other is refused, never guessed.
    await writeFile(path, (await readFile(path, 'utf8')).replace('read: no', 'read: true'));
    await expect(openRepository(path)).rejects.toThrow(`${path}, line 3: readAt must be the date it was read, as read is true`);
    await writeFile(path, (await readFile(path, 'utf8')).replace('read: true', 'read: false').replace('readAt: ~', 'readAt: 2026-01-02T00:00:00Z'));
    await expect(openRepository(path)).rejects.toThrow(`${path}, line 3: readAt must be null, as read is false`);
    await writeFile(path, (await readFile(path, 'utf8')).replace('readAt: 2026-01-02T00:00:00Z', 'readAt: ~'));
    const repo = await openRepository(path);
    expect(await repo.get('hand-1')).toMatchObject({ message: 'two\nlines\n', priority: 1, read: false, readAt: null, delivery: { status: 'skipped' } });
  });
});

describe('YamlNotificationRepository loading untrusted YAML', () => {
  it('rejects a "billion laughs" alias bomb quickly, without expanding it', async () => {
    const path = join(await makeTempDir(), 'notifications.yaml');
    const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 12; i++) {
      const prev = String.fromCharCode(96 + i);
      levels.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    await writeFile(path, `${levels.join('\n')}\nnotifications: [*l]\n`);
    const heapBefore = process.memoryUsage().heapUsed;
    await within(1_000, 'refusing the alias bomb', () =>
      expect(new YamlNotificationRepository(path).open()).rejects.toThrow(`${path}, line 2: YAML aliases (*name) are not allowed`),
    );
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(64 * 1024 * 1024);
  });

  it('rejects custom tags such as !!js/function', async () => {
    const path = join(await makeTempDir(), 'notifications.yaml');
    await writeFile(path, 'notifications:\n  - !!js/function "function () { return 1 }"\n');
    await expect(new YamlNotificationRepository(path).open()).rejects.toThrow(`${path}, line 2`);
  });
});
