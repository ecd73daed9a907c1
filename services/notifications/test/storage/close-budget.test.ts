import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ManualClock } from '@homeops/common';
import { describe, expect, it } from 'vitest';
import { YamlNotificationRepository } from '../../src/adapters/storage/yaml-notification.repository.js';
import { makeRecord } from './make-record.js';
import { makeTempDir, openRepository } from './storage-harness.js';

function journals(dir: string): string[] {
  return readdirSync(dir).filter((name) => name.endsWith('.journal') && statSync(join(dir, name)).size > 0);
}

/** `count` records left in the journal only, as a stop that did not fold leaves them. */
async function fillJournal(path: string, count: number): Promise<void> {
  const repo = new YamlNotificationRepository(path, { compactWhenQuietMs: 0, compactOnClose: false });
  await repo.open();
  await Promise.all(Array.from({ length: count }, () => repo.insert(makeRecord({ recipient: 'bulk' }))));
  await repo.close();
}

describe('YamlNotificationRepository close within a time budget', () => {
  it('leaves the journal for the next start when folding would not fit the budget, and loses nothing', async () => {
    const dir = await makeTempDir();
    const path = join(dir, 'notifications.yaml');
    const lines: string[] = [];
    const repo = new YamlNotificationRepository(path, { compactWhenQuietMs: 0, closeFoldBudgetMs: 0, log: (_l, m) => lines.push(m) });
    await repo.open();
    const ids = await Promise.all(
      Array.from({ length: 50 }, async () => {
        const record = makeRecord();
        await repo.insert(record);
        return record.id;
      }),
    );

    await repo.close();

    expect(lines.some((m) => m.startsWith('Left ') && m.includes('journal for the next start'))).toBe(true);
    expect(journals(dir)).toHaveLength(1);
    const reopened = await openRepository(path);
    expect((await reopened.list('alice', { limit: 500 })).items.map((r) => r.id).sort()).toEqual(ids.sort());
  });

  it('still folds everything on close when it fits', async () => {
    const dir = await makeTempDir();
    const path = join(dir, 'notifications.yaml');
    const repo = new YamlNotificationRepository(path, { compactWhenQuietMs: 0 });
    await repo.open();
    await repo.insert(makeRecord());

    await repo.close();

    expect(journals(dir)).toEqual([]);
    expect(statSync(path).size).toBeGreaterThan(0);
  });

  it('gives up a fold that is still running when the budget is spent: no snapshot renamed in, no temp file, nothing lost', async () => {
    const dir = await makeTempDir();
    const path = join(dir, 'notifications.yaml');
    await fillJournal(path, 20_000);
    const lines: string[] = [];
    // The next change starts a fold of all 20,001 records, written one per write: still running at close.
    const repo = new YamlNotificationRepository(path, {
      compactAfterBytes: 1,
      compactWhenQuietMs: 0,
      snapshotChunkRecords: 1,
      closeFoldBudgetMs: 0,
      log: (_l, m) => lines.push(m),
    });
    await repo.open();
    const late = makeRecord();
    await repo.insert(late);

    await repo.close();

    expect(lines).toContain('Stopping: the fold was given up to stop in time; the journal keeps everything');
    expect(existsSync(`${path}.tmp`)).toBe(false);
    expect(existsSync(path)).toBe(false);
    const reopened = await openRepository(path);
    expect((await reopened.stats()).records).toBe(20_001);
    expect(await reopened.get(late.id)).toEqual(late);
  }, 60_000);

  it('gives up at once a running fold that, at its pace so far, would end past the deadline, and leaves the journal', async () => {
    const dir = await makeTempDir();
    const path = join(dir, 'notifications.yaml');
    await fillJournal(path, 20_000);
    const lines: string[] = [];
    const clock = new ManualClock();
    // The next change starts a fold of all 20,001 records, written one per write.
    const repo = new YamlNotificationRepository(path, {
      compactAfterBytes: 1,
      compactWhenQuietMs: 0,
      snapshotChunkRecords: 1,
      closeFoldBudgetMs: 60_000,
      clock,
      log: (_l, m) => lines.push(m),
    });
    await repo.open();
    const late = makeRecord();
    await repo.insert(late);
    // Ten minutes for what it wrote so far: far from done, it cannot end within a minute of the close.
    clock.advance(600_000);

    await repo.close();

    // The clock never reached the deadline: only the pace gave the fold up, and it set the close's estimate.
    expect(lines).toContain('Stopping: the fold was given up to stop in time; the journal keeps everything');
    expect(lines.some((m) => m.startsWith('Left ') && m.includes('journal for the next start'))).toBe(true);
    expect(lines.filter((m) => m.startsWith('Folded'))).toEqual([]);
    expect(existsSync(`${path}.tmp`)).toBe(false);
    const reopened = await openRepository(path);
    expect((await reopened.stats()).records).toBe(20_001);
    expect(await reopened.get(late.id)).toEqual(late);
  }, 60_000);
});
