import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '@homeops/test-kit';
import { LOCK_RETENTION, MIGRATIONS } from '../../src/adapters/storage/postgres/pg-migrations.js';
import { PgEventRelay } from '../../src/adapters/storage/postgres/pg-event-relay.js';
import { PgNotificationRepository, type PgSettings } from '../../src/adapters/storage/postgres/pg-notification.repository.js';
import { NotificationEvents, type NotificationEvent } from '../../src/domain/notification-events.js';
import { makeRecord } from './make-record.js';
import { freshDatabase, queryRows } from '../support/postgres-database.js';

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const item of opened.splice(0).reverse()) await item.close();
});

async function instance(url: string, settings: Partial<PgSettings> = {}): Promise<PgNotificationRepository> {
  const repo = new PgNotificationRepository({ url, poolMax: 4, connectTimeoutMs: 2_000, queryTimeoutMs: 5_000, leaseMs: 30_000, ...settings });
  opened.push(repo);
  await repo.open();
  return repo;
}

describe('PostgreSQL history shared by several instances', () => {
  it('migrates once when instances start together, and a second start changes nothing', async () => {
    const url = await freshDatabase();
    await Promise.all([instance(url), instance(url), instance(url)]);
    const versions = await queryRows<{ version: number }>(url, 'SELECT version FROM schema_migrations');
    expect(versions.map((v) => v.version)).toEqual(MIGRATIONS.map((m) => m.version));
    await instance(url);
    expect(await queryRows(url, 'SELECT version FROM schema_migrations')).toHaveLength(MIGRATIONS.length);
  });

  it('refuses to start on a schema newer than it knows', async () => {
    const url = await freshDatabase();
    await instance(url);
    await queryRows(url, "INSERT INTO schema_migrations (version, name) VALUES (999, 'from the future')");
    const repo = new PgNotificationRepository({ url, poolMax: 2, connectTimeoutMs: 2_000, queryTimeoutMs: 5_000, leaseMs: 30_000 });
    opened.push(repo);
    await expect(repo.open()).rejects.toThrow(/version 999, newer than this release knows/);
  });

  it("lets one instance's claim stand until its lease lapses, then another takes the delivery over", async () => {
    const url = await freshDatabase();
    const a = await instance(url, { instanceId: 'a', leaseMs: 300 });
    const b = await instance(url, { instanceId: 'b', leaseMs: 300 });
    const record = makeRecord({ delivery: { status: 'pending', attempts: 0 } });
    await a.insert(record);
    expect((await b.pending()).map((r) => r.id)).toEqual([]);
    const attempt = { status: 'pending' as const, attempts: 1, lastAttemptAt: new Date().toISOString() };
    expect(await b.claimAttempt(record.id, attempt)).toBeUndefined();
    expect(await a.claimAttempt(record.id, attempt)).toBeDefined();
    // a dies mid-send: nothing is recorded, and once its lease runs out b's sweep takes the delivery.
    await eventually(async () => (await b.pending()).map((r) => r.id).includes(record.id), "b's sweep to take the delivery over");
    expect((await a.pending()).map((r) => r.id)).toEqual([]);
    expect(await b.claimAttempt(record.id, { ...attempt, attempts: 2 })).toMatchObject({ delivery: { attempts: 2 } });
  });

  it('keeps a scheduled retry with the instance that scheduled it until its time plus the lease', async () => {
    const url = await freshDatabase();
    const a = await instance(url, { instanceId: 'a', leaseMs: 200 });
    const b = await instance(url, { instanceId: 'b', leaseMs: 200 });
    const record = makeRecord({ delivery: { status: 'sent', attempts: 1 } });
    await a.insert(record);
    const nextAttemptAt = Date.now() + 300;
    await a.update(record.id, { delivery: { status: 'pending', attempts: 1, nextAttemptAt: new Date(nextAttemptAt).toISOString() } });
    expect(await b.pending()).toEqual([]);
    // Its own sweeps do not shorten it.
    expect((await a.pending()).map((r) => r.id)).toEqual([record.id]);
    // The claim lasts until the planned attempt plus a whole lease, by the database's clock: b's sweeps get nothing before.
    const [claim] = await queryRows<{ lease_owner: string; lease_until: Date }>(url, 'SELECT lease_owner, lease_until FROM notifications');
    expect(claim?.lease_owner).toBe('a');
    expect(claim!.lease_until.getTime()).toBeGreaterThanOrEqual(nextAttemptAt + 200);
    await eventually(async () => (await b.pending()).length === 1, { timeoutMs: 3_000 });
  });

  it('hands out pending deliveries to sweeping instances without overlap', async () => {
    const url = await freshDatabase();
    const a = await instance(url, { instanceId: 'a' });
    const b = await instance(url, { instanceId: 'b' });
    const records = Array.from({ length: 40 }, () => makeRecord({ delivery: { status: 'pending', attempts: 0 } }));
    for (const record of records) await a.insert(record);
    await queryRows(url, 'UPDATE notifications SET lease_until = NULL, lease_owner = NULL');
    const [fromA, fromB] = await Promise.all([a.pending(), b.pending()]);
    const ids = [...fromA, ...fromB].map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual(records.map((r) => r.id).sort());
  });

  it('prunes on one instance at a time: while another holds the retention lock, nothing is pruned here', async () => {
    const url = await freshDatabase();
    const a = await instance(url);
    for (let i = 0; i < 30; i++) await a.insert(makeRecord({ createdAt: '2020-01-01T00:00:00.000Z' }));
    const rule = { olderThan: new Date('2021-01-01T00:00:00.000Z') };
    const other = new pg.Client(url);
    await other.connect();
    try {
      await other.query('SELECT pg_advisory_lock($1)', [LOCK_RETENTION]);
      expect(await a.prune(rule)).toEqual([]);
      expect((await a.list('alice', { limit: 5 })).total).toBe(30);
      await other.query('SELECT pg_advisory_unlock($1)', [LOCK_RETENTION]);
    } finally {
      await other.end();
    }
    expect(await a.prune(rule)).toHaveLength(30);
    expect((await a.list('alice', { limit: 5 })).total).toBe(0);
  });

  it('counts totals and unread per recipient through every kind of change, without scanning', async () => {
    const url = await freshDatabase();
    const a = await instance(url);
    const records = Array.from({ length: 6 }, (_, i) => makeRecord({ recipient: i % 2 ? 'bob' : 'alice' }));
    for (const record of records) await a.insert(record);
    await a.update(records[0]!.id, { read: true, readAt: '2026-01-02T00:00:00.000Z' });
    await a.update(records[0]!.id, { delivery: { status: 'sent', attempts: 2 } });
    await a.markAllRead('bob', '2026-01-02T00:00:00.000Z');
    await a.remove(records[2]!.id);
    expect(await a.recipients()).toEqual([
      { recipient: 'alice', total: 2, unread: 1 },
      { recipient: 'bob', total: 3, unread: 0 },
    ]);
    const counted = await queryRows<{ n: string }>(url, "SELECT count(*) AS n FROM notifications WHERE recipient = 'alice' AND NOT read");
    expect(Number(counted[0]!.n)).toBe(1);
  });

  it('stores creates that arrive together in their order with the counts right, and fails only a duplicate id among them', async () => {
    const url = await freshDatabase();
    const a = await instance(url);
    const records = Array.from({ length: 40 }, (_, i) => makeRecord({ recipient: i % 4 ? 'alice' : 'bob' }));
    await Promise.all(records.map((record) => a.insert(record)));

    const duplicate = { ...makeRecord(), id: records[5]!.id };
    const next = [makeRecord(), makeRecord(), duplicate, makeRecord()];
    const outcomes = await Promise.all(
      next.map((record) =>
        a.insert(record).then(
          () => 'stored',
          (err: Error) => err.message,
        ),
      ),
    );

    expect(outcomes).toEqual(['stored', 'stored', `Notification id ${duplicate.id} already exists`, 'stored']);
    const page = await a.list('bob', { limit: 50, unreadOnly: false });
    expect(page.items.map((r) => r.id)).toEqual(
      [...next.filter((r) => r !== duplicate), ...records]
        .filter((r) => r.recipient === 'bob')
        .reverse()
        .map((r) => r.id),
    );
    expect(await a.recipients()).toEqual([
      { recipient: 'alice', total: 33, unread: 33 },
      { recipient: 'bob', total: 10, unread: 10 },
    ]);
  });

  it("carries events to the other instance's streams with the stored record, and to its jobs marked remote", async () => {
    const url = await freshDatabase();
    const a = await instance(url, { instanceId: 'a' });
    const b = await instance(url, { instanceId: 'b' });
    const eventsA = new NotificationEvents();
    const eventsB = new NotificationEvents();
    for (const [repo, events] of [
      [a, eventsA],
      [b, eventsB],
    ] as const) {
      const relay = new PgEventRelay(repo.pool, url, repo, repo.instanceId);
      opened.push({ close: () => relay.stop() });
      await events.connect(relay);
    }
    const seen: NotificationEvent[] = [];
    const jobs: Array<[NotificationEvent['type'], boolean]> = [];
    eventsB.subscribe('alice', (event) => seen.push(event));
    eventsB.subscribeAll((event, _id, remote) => jobs.push([event.type, remote]));
    const record = makeRecord();
    await a.insert(record);
    eventsA.publish({ type: 'created', recipient: 'alice', notification: record });
    eventsA.publish({ type: 'read-all', recipient: 'alice', updated: 1, readAt: '2026-01-03T00:00:00.000Z' });
    eventsA.publish({ type: 'deleted', recipient: 'alice', id: record.id });
    await eventually(() => seen.length === 3, { timeoutMs: 5_000 });
    expect(seen[0]).toEqual({ type: 'created', recipient: 'alice', notification: record });
    expect(seen[1]).toEqual({ type: 'read-all', recipient: 'alice', updated: 1, readAt: '2026-01-03T00:00:00.000Z' });
    expect(seen[2]).toEqual({ type: 'deleted', recipient: 'alice', id: record.id });
    expect(jobs).toEqual([
      ['created', true],
      ['read-all', true],
      ['deleted', true],
    ]);
    expect(eventsB.missedSince('alice', eventsB.replayStart)?.map((e) => e.data.type)).toEqual(['created', 'read-all', 'deleted']);
  });
});
