import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { PgNotificationRepository } from '../../src/adapters/storage/postgres/pg-notification.repository.js';
import { freshDatabase } from '../support/postgres-database.js';
import { makeRecord } from './make-record.js';
import { makeTempDir, openRepository } from './storage-harness.js';
import { readSince, UNREAD } from '../../src/domain/notification.js';

const SERVICE_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const opened: PgNotificationRepository[] = [];
afterEach(async () => {
  for (const repo of opened.splice(0)) await repo.close();
});

/** `node dist/import-history.js` as a user runs it, from source. */
function runImport(env: Record<string, string>) {
  const run = spawnSync(process.execPath, ['--conditions=source', '--import', 'tsx', 'src/import-history.ts'], {
    cwd: SERVICE_ROOT,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('import-history (YAML file into PostgreSQL)', () => {
  it('copies the whole history with read states and pending deliveries, and a second run copies nothing twice', { timeout: 60_000 }, async () => {
    const dir = await makeTempDir();
    const path = join(dir, 'notifications.yaml');
    const yaml = await openRepository(path);
    const records = Array.from({ length: 1_200 }, (_, i) =>
      makeRecord({ recipient: ['alice', 'bob', 'carol'][i % 3]!, ...(i % 2 === 0 ? readSince('2026-01-02T00:00:00.000Z') : UNREAD) }),
    );
    records[7] = { ...records[7]!, delivery: { status: 'pending', attempts: 1, nextAttemptAt: '2026-01-01T00:00:00.000Z' } };
    await Promise.all(records.map((record) => yaml.insert(record)));
    const expected = await yaml.recipients();
    await yaml.close();
    const url = await freshDatabase();

    const first = runImport({ STORAGE_PATH: path, STORAGE_URL: url });
    const second = runImport({ STORAGE_PATH: path, STORAGE_URL: url });

    expect(first.code, first.output).toBe(0);
    expect(first.output).toContain('copied 1200, already there 0, of 1200');
    expect(first.output).toContain(`ATTACHMENTS_DIR=${join(dir, 'notifications.attachments')}`);
    expect(second.output).toContain('copied 0, already there 1200, of 1200');
    const pg = new PgNotificationRepository({ url, poolMax: 2, connectTimeoutMs: 5_000, queryTimeoutMs: 10_000, leaseMs: 30_000 });
    opened.push(pg);
    await pg.open();
    expect(await pg.recipients()).toEqual(expected);
    expect((await pg.list('bob', { limit: 500 })).items).toEqual([...records].filter((r) => r.recipient === 'bob').reverse());
    expect((await pg.pending()).map((r) => r.id)).toEqual([records[7]!.id]);
    expect(first.output).not.toMatch(/postgres:\/\/[^@\s]*@/);
  });

  it('refuses to run without STORAGE_URL, and stops with the reason while the service holds the file', { timeout: 60_000 }, async () => {
    const dir = await makeTempDir();
    const path = join(dir, 'notifications.yaml');
    await openRepository(path);

    const noUrl = runImport({ STORAGE_PATH: path });
    const locked = runImport({ STORAGE_PATH: path, STORAGE_URL: await freshDatabase() });

    expect(noUrl.code).toBe(2);
    expect(noUrl.output).toContain('set STORAGE_URL');
    expect(locked.code).toBe(1);
    expect(locked.output).toMatch(/could not be copied: .*(lock|in use|another)/i);
  });
});
