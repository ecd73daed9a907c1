import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ManualClock } from '@homeops/common';
import { eventually } from '@homeops/test-kit';
import { describe, expect, it } from 'vitest';
import { YamlNotificationRepository } from '../../src/adapters/storage/yaml-notification.repository.js';
import { FaultyFs } from './faulty-fs.js';
import { makeRecord } from './make-record.js';
import { describeRepositoryContract } from './repository-contract.js';
import { makeTempDir, openRepository } from './storage-harness.js';
import { loadReferenceYaml } from './reference-yaml.js';
import { readSince, UNREAD } from '../../src/domain/notification.js';

describeRepositoryContract('YamlNotificationRepository', async () => openRepository(join(await makeTempDir(), 'notifications.yaml')));

describe('YamlNotificationRepository restart', () => {
  it('reloads everything from the snapshot plus the journal written after it', async () => {
    const path = join(await makeTempDir(), 'notifications.yaml');
    const first = new YamlNotificationRepository(path, { compactOnClose: false });
    await first.open();
    const folded = Array.from({ length: 20 }, () => makeRecord());
    for (const record of folded) await first.insert(record);
    await first.close();
    // Reopen with compaction forced on close, then add to the journal only.
    const second = new YamlNotificationRepository(path, { compactOnClose: true });
    await second.open();
    await second.close();
    const third = new YamlNotificationRepository(path, { compactOnClose: false });
    await third.open();
    const journaled = makeRecord({ recipient: 'bob' });
    await third.insert(journaled);
    await third.update(folded[0]!.id, { read: true, readAt: '2026-04-01T00:00:00.000Z' });
    await third.remove(folded[1]!.id);
    await third.close();

    const snapshot = loadReferenceYaml(await readFile(path, 'utf8')) as { notifications: unknown[] };
    expect(snapshot.notifications).toHaveLength(20);
    const reopened = await openRepository(path);
    expect(await reopened.get(journaled.id)).toEqual(journaled);
    expect(await reopened.get(folded[0]!.id)).toMatchObject({ read: true, readAt: '2026-04-01T00:00:00.000Z' });
    expect(await reopened.get(folded[1]!.id)).toBeUndefined();
    expect(await reopened.list('alice', { limit: 100 })).toMatchObject({ total: 19, unread: 18 });
    expect(await reopened.stats()).toMatchObject({ path, records: 20, writable: true });
  });

  it('writes a YAML snapshot that a general YAML parser loads to exactly the stored records, odd characters included', async () => {
    const path = join(await makeTempDir(), 'notifications.yaml');
    const repo = new YamlNotificationRepository(path);
    await repo.open();
    const odd = makeRecord({
      title: 'yes: no # not a comment',
      message: 'line1\nline2\t"quoted" \\ \u0000\u007f\u0085\u2028 ✓ 🚪 \ud800',
      url: 'https://example.com/?a=1&b=*x',
      sound: 'null',
      device: '- item',
      html: true,
      ttl: 3600,
      attachment: { filename: 'a b.png', contentType: 'image/png', size: 12 },
      delivery: { status: 'failed', attempts: 3, error: '{"errors":["bad"]}', lastAttemptAt: '2026-01-01T00:00:00.000Z' },
    });
    const plain = makeRecord({ priority: -2 });
    await repo.insert(odd);
    await repo.insert(plain);
    await repo.close();
    const text = await readFile(path, 'utf8');
    expect((loadReferenceYaml(text) as { notifications: unknown[] }).notifications).toEqual([odd, plain]);
    expect(text).toContain('title: "yes: no # not a comment"');
    const reopened = await openRepository(path);
    expect(await reopened.get(odd.id)).toEqual(odd);
  });

  it("keeps an emergency's alert identity (the server's own field) through the journal and through the snapshot", async () => {
    const path = join(await makeTempDir(), 'notifications.yaml');
    const alert = { source: 'generic', key: '0123456789abcdef', firedBy: 'token:abcdef012345' };
    const ringing = makeRecord({
      priority: 2,
      emergency: { retry: 60, expire: 3600, tags: 'garage,alert-0123456789abcdef' },
      alert,
      delivery: { status: 'sent', attempts: 1, receipt: 'r'.repeat(30) },
    });
    const journalOnly = new YamlNotificationRepository(path, { compactOnClose: false });
    await journalOnly.open();
    await journalOnly.insert(ringing);
    await journalOnly.close();
    const journal = (await readdir(dirname(path))).find((name) => name.endsWith('.journal'))!;
    expect(await readFile(join(dirname(path), journal), 'utf8')).toContain(
      '"alert":{"source":"generic","key":"0123456789abcdef","firedBy":"token:abcdef012345"}',
    );

    const fromJournal = new YamlNotificationRepository(path, { compactOnClose: true });
    await fromJournal.open();
    expect(await fromJournal.get(ringing.id)).toEqual(ringing);
    await fromJournal.close();
    expect(await readFile(path, 'utf8')).toContain('    alert:\n      source: "generic"\n');

    const fromSnapshot = await openRepository(path);
    expect(await fromSnapshot.get(ringing.id)).toEqual(ringing);
    expect((await fromSnapshot.ringing())[0]!.alert).toEqual(alert);
    expect((loadReferenceYaml(await readFile(path, 'utf8')) as { notifications: unknown[] }).notifications).toEqual([ringing]);
  });

  it('keeps an emergency, its delivery alias and resend time across a restart, and knows it is still ringing', async () => {
    const path = join(await makeTempDir(), 'notifications.yaml');
    const repo = new YamlNotificationRepository(path);
    await repo.open();
    const ringing = makeRecord({
      priority: 2,
      emergency: { retry: 30, expire: 600, callback: 'https://example.org/a?b=1', tags: 'smoke,kitchen' },
      delivery: { status: 'sent', attempts: 1, to: 'alice', receipt: 'r'.repeat(30), request: 'q' },
    });
    const acknowledged = makeRecord({
      priority: 2,
      emergency: { retry: 60, expire: 3600, acknowledgedAt: '2026-11-24T10:00:00.000Z', acknowledgedBy: 'a member of family', acknowledgedByDevice: 'tablet' },
      delivery: { status: 'sent', attempts: 1, receipt: 's'.repeat(30) },
    });
    const unknown = makeRecord({
      priority: 2,
      emergency: { retry: 60, expire: 3600 },
      delivery: { status: 'unknown', attempts: 1, to: 'default', error: 'may be ringing', resentAt: '2026-11-24T10:00:00.000Z' },
    });
    for (const record of [ringing, acknowledged, unknown]) await repo.insert(record);
    expect((await repo.ringing()).map((r) => r.id)).toEqual([ringing.id]);
    await repo.close();
    const fromSnapshot = await openRepository(path);
    for (const record of [ringing, acknowledged, unknown]) expect(await fromSnapshot.get(record.id)).toEqual(record);
    expect((await fromSnapshot.ringing()).map((r) => r.id)).toEqual([ringing.id]);
  });

  it('folds the journal into the snapshot in the background once it passes the threshold', async () => {
    const dir = await makeTempDir();
    const path = join(dir, 'notifications.yaml');
    const repo = await openRepository(path, { compactAfterBytes: 4096, compactOnClose: false });
    const records = Array.from({ length: 60 }, () => makeRecord());
    await Promise.all(records.map((record) => repo.insert(record)));
    await expect
      .poll(async () => ((loadReferenceYaml(await readFile(path, 'utf8').catch(() => '')) ?? {}) as { notifications?: unknown[] }).notifications?.length ?? 0)
      .toBeGreaterThan(0);
    expect((await repo.stats()).fileBytes).toBeGreaterThan(0);
  });

  it('under load, waits for the journal to grow as big as the snapshot before folding again', async () => {
    const path = join(await makeTempDir(), 'notifications.yaml');
    const folds: number[] = [];
    const log = (_level: string, message: string) => {
      const match = /^Folded (\d+) /.exec(message);
      if (match) folds.push(Number(match[1]));
    };
    const options = { compactAfterBytes: 4096, compactWhenQuietMs: 0, compactOnClose: false, log };
    const repo = await openRepository(path, options);
    await Promise.all(Array.from({ length: 200 }, () => repo.insert(makeRecord())));
    await expect.poll(() => folds.length).toBe(1);
    const snapshotBytes = (await readFile(path)).length;
    const journalBefore = (await repo.stats()).fileBytes - snapshotBytes;
    // One record's journal entry is a few hundred bytes: stay well under the snapshot's size, then pass it.
    while ((await repo.stats()).fileBytes - snapshotBytes - journalBefore < snapshotBytes / 2) await repo.insert(makeRecord());
    // A fold those writes started would be under way now: close waits for it (and folds nothing itself here).
    await repo.close();
    expect(folds).toHaveLength(1);
    const reopened = await openRepository(path, options);
    while ((await reopened.stats()).fileBytes - snapshotBytes < snapshotBytes) await reopened.insert(makeRecord());
    await expect.poll(() => folds.length).toBe(2);
    expect(folds[1]).toBe((await reopened.stats()).records);
  });

  it('folds a small journal once changes stop for a while, not while they keep coming', async () => {
    const path = join(await makeTempDir(), 'notifications.yaml');
    const clock = new ManualClock();
    const folds: number[] = [];
    const log = (_level: string, message: string) => {
      const match = /^Folded (\d+) /.exec(message);
      if (match) folds.push(Number(match[1]));
    };
    const repo = await openRepository(path, { compactWhenQuietMs: 400, compactWhenQuietAfterBytes: 1, compactOnClose: false, log, clock });
    const snapshotCount = async () =>
      ((loadReferenceYaml(await readFile(path, 'utf8').catch(() => '')) ?? {}) as { notifications?: unknown[] }).notifications?.length ?? 0;
    // A change every 40 ms of the clock: the quiet check at 400 ms finds the last one 40 ms old.
    for (let i = 0; i < 12; i++) {
      await repo.insert(makeRecord());
      clock.advance(40);
    }
    clock.advance(400); // the check at 800 ms: the last change (440 ms) is 360 ms old, still too recent
    expect(await snapshotCount()).toBe(0);
    clock.advance(400); // the check at 1200 ms: quiet for 760 ms
    await eventually(async () => (await snapshotCount()) === 12, 'the quiet fold');
    // One fold, holding all twelve: none started while the changes kept coming.
    expect(folds).toEqual([12]);
  });

  it('makes concurrent writes durable in far fewer fdatasyncs than writes (group commit), losing none', async () => {
    const path = join(await makeTempDir(), 'notifications.yaml');
    const fs = new FaultyFs();
    const repo = await openRepository(path, { fs, compactAfterBytes: 64 * 1024 });
    const records = Array.from({ length: 400 }, (_, i) => makeRecord({ recipient: `r${i % 4}` }));
    await Promise.all(records.map((record) => repo.insert(record)));
    const readNow = (i: number): boolean => Math.floor(i / 4) % 2 === 0;
    const updates = await Promise.all(records.map((record, i) => repo.update(record.id, readNow(i) ? readSince(record.createdAt) : UNREAD)));
    expect(updates.every((record) => record !== undefined)).toBe(true);
    expect(fs.datasyncs).toBeLessThan(200);
    await repo.close();
    const reopened = await openRepository(path);
    expect((await reopened.stats()).records).toBe(400);
    for (let r = 0; r < 4; r++) expect(await reopened.list(`r${r}`, { limit: 500 })).toMatchObject({ total: 100, unread: 50 });
  });

  it('gathers changes for groupCommitDelayMs before syncing them together', async () => {
    const path = join(await makeTempDir(), 'notifications.yaml');
    const fs = new FaultyFs();
    const clock = new ManualClock();
    const repo = await openRepository(path, { fs, groupCommitDelayMs: 30, clock });
    const synced = fs.datasyncs;
    const writes: Array<Promise<void>> = [];
    for (let i = 0; i < 20; i++) {
      writes.push(repo.insert(makeRecord()));
      await new Promise((resolve) => setImmediate(resolve));
    }
    // Twenty changes, each in its own turn, inside the 30 ms of the clock: nothing synced yet, then one sync for all.
    expect(fs.datasyncs).toBe(synced);
    clock.advance(30);
    await Promise.all(writes);
    expect(fs.datasyncs - synced).toBe(1);
    expect((await repo.stats()).records).toBe(20);
  });

  it('applies concurrent patches to the same record in call order', async () => {
    const path = join(await makeTempDir(), 'notifications.yaml');
    const repo = await openRepository(path);
    const record = makeRecord();
    await repo.insert(record);
    await Promise.all(Array.from({ length: 50 }, (_, i) => repo.update(record.id, { delivery: { status: 'pending', attempts: i + 1 } })));
    await repo.close();
    const reopened = await openRepository(path);
    expect((await reopened.get(record.id))?.delivery.attempts).toBe(50);
  });
});
