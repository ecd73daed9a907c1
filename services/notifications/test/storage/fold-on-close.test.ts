import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { YamlNotificationRepository } from '../../src/adapters/storage/yaml-notification.repository.js';
import { makeRecord } from './make-record.js';
import { loadReferenceYaml } from './reference-yaml.js';
import { makeTempDir, openRepository } from './storage-harness.js';

const CHILD = fileURLToPath(new URL('./fold-on-close.child.ts', import.meta.url));

function journalBytes(dir: string): number {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.journal'))
    .reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);
}

/** A folded snapshot of `folded` records plus a journal of `journaled` more, as a stop that did not fold leaves it. */
async function historyWithLargeJournal(path: string, folded: number, journaled: number): Promise<string[]> {
  const ids: string[] = [];
  const fill = async (count: number, compactOnClose: boolean) => {
    const repo = new YamlNotificationRepository(path, { compactWhenQuietMs: 0, compactAfterBytes: Number.MAX_SAFE_INTEGER, compactOnClose });
    await repo.open();
    const records = Array.from({ length: count }, () => makeRecord({ recipient: `r${ids.length % 3}` }));
    ids.push(...records.map((record) => record.id));
    await Promise.all(records.map((record) => repo.insert(record)));
    await repo.close();
  };
  await fill(folded, true);
  await fill(journaled, false);
  return ids;
}

/** Runs the child that closes (folds) the history, and SIGKILLs it once it stopped at `moment`. */
function killDuringFoldOnClose(path: string, moment: 'writing' | 'renamed' | 'cached'): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=source', CHILD, path, moment], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes(`at ${moment}\n`)) child.kill('SIGKILL');
    });
    child.on('error', reject);
    child.on('exit', (_code, signal) => {
      if (signal === 'SIGKILL') resolve();
      else reject(new Error(`the child did not stop at ${moment}: ${stdout} ${stderr}`));
    });
  });
}

describe('YamlNotificationRepository folding a large journal on close', () => {
  it('folds the journal into the YAML file on close, and the next start reads it from the cache with nothing to replay', { timeout: 30_000 }, async () => {
    const dir = await makeTempDir();
    const path = join(dir, 'notifications.yaml');
    const ids = await historyWithLargeJournal(path, 50, 300);
    expect(journalBytes(dir)).toBeGreaterThan(statSync(path).size);

    const repo = new YamlNotificationRepository(path, { compactWhenQuietMs: 0, closeFoldBudgetMs: 60_000 });
    await repo.open();
    await repo.close();

    expect(journalBytes(dir)).toBe(0);
    const yaml = loadReferenceYaml(await readFile(path, 'utf8')) as { notifications: Array<{ id: string }> };
    expect(yaml.notifications.map((record) => record.id).sort()).toEqual([...ids].sort());
    const lines: string[] = [];
    const reopened = await openRepository(path, { log: (_level, message) => lines.push(message) });
    expect(lines.filter((line) => line.startsWith('Parsed'))).toEqual([]);
    expect((await reopened.stats()).records).toBe(ids.length);
    for (const id of ids) expect((await reopened.get(id))?.id).toBe(id);
  });

  for (const moment of ['writing', 'renamed', 'cached'] as const) {
    it(`keeps every record when killed -9 while folding on close (${moment}), and the next start cleans up`, { timeout: 60_000 }, async () => {
      const dir = await makeTempDir();
      const path = join(dir, 'notifications.yaml');
      const ids = await historyWithLargeJournal(path, 50, 300);
      const snapshotBefore = await readFile(path);

      await killDuringFoldOnClose(path, moment);

      // Killed before the rename, the old snapshot is untouched; after it, the new one is whole.
      if (moment === 'writing') expect(await readFile(path)).toEqual(snapshotBefore);
      const yaml = loadReferenceYaml(await readFile(path, 'utf8')) as { notifications: unknown[] };
      expect(yaml.notifications.length).toBe(moment === 'writing' ? 50 : ids.length);
      const reopened = await openRepository(path);
      expect((await reopened.stats()).records).toBe(ids.length);
      for (const id of ids) expect((await reopened.get(id))?.id).toBe(id);
      expect(existsSync(`${path}.tmp`)).toBe(false);
      // Journals already in the snapshot are gone once the history is open again.
      if (moment !== 'writing') expect(journalBytes(dir)).toBe(0);
    });
  }
});
