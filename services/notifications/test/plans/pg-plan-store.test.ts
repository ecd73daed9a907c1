import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { PgNotificationRepository, type PgSettings } from '../../src/adapters/storage/postgres/pg-notification.repository.js';
import { PgPlanStore } from '../../src/adapters/storage/postgres/pg-plan-store.js';
import type { ScheduledSend } from '../../src/domain/plans/plan.js';
import { makeRecord } from '../storage/make-record.js';
import { freshDatabase, queryRows } from '../support/postgres-database.js';
import { describePlanStoreContract } from './plan-store.contract.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const historyOn = (url: string, settings: Partial<PgSettings> = {}) =>
  new PgNotificationRepository({ url, poolMax: 3, connectTimeoutMs: 2_000, queryTimeoutMs: 5_000, leaseMs: 30_000, ...settings });

/** The history on `url`, opened (schema migrated) and closed after the test; its pool is the one the plans use. */
async function history(url: string, settings: Partial<PgSettings> = {}): Promise<PgNotificationRepository> {
  const repository = historyOn(url, settings);
  closers.push(() => repository.close());
  await repository.open();
  return repository;
}

const send = (key: string): ScheduledSend => ({
  kind: 'send',
  key,
  sendAt: 1_000,
  notification: { recipient: 'ops', title: 'Reminder', message: key, priority: 0 },
  createdAt: 0,
});

describePlanStoreContract('PgPlanStore', {
  durable: true,
  open: async () => {
    const url = await freshDatabase();
    // A restart is another instance's history and store on the same database.
    const openOn = async () => {
      const store = new PgPlanStore((await history(url)).pool);
      await store.open();
      return store;
    };
    return { store: await openOn(), reopen: openOn };
  },
});

describe('PgPlanStore on the history pool', () => {
  it('lets exactly one of two instances win each claim of the same version', async () => {
    const url = await freshDatabase();
    const a = new PgPlanStore((await history(url)).pool);
    const b = new PgPlanStore((await history(url)).pool);
    const keys = Array.from({ length: 20 }, (_, i) => `race-${i}`);
    const read = await Promise.all(keys.map((key) => a.put(send(key))));

    const outcomes = await Promise.all(
      read.flatMap((plan) => [a, b].map((store) => store.swap('send', plan.key, plan.version, { ...send(plan.key), attemptAfter: 5_000 }))),
    );

    expect(outcomes.filter(Boolean)).toHaveLength(keys.length);
    for (let i = 0; i < keys.length; i++) expect(outcomes[2 * i]).not.toBe(outcomes[2 * i + 1]);
    expect((await b.list()).map((plan) => plan.version)).toEqual(keys.map(() => 2));
  });

  it('leaves the pool to its owner: closing the store ends nothing, and the history goes on', async () => {
    const url = await freshDatabase();
    const repository = await history(url);
    const store = new PgPlanStore(repository.pool);
    await store.open();
    await store.put(send('reminder'));

    await store.close();

    expect(repository.pool.ended).toBe(false);
    await repository.insert(makeRecord());
    expect(await store.get('send', 'reminder')).toMatchObject({ version: 1 });
  });

  it('stores a plan as JSON in its own table, the version in its own column', async () => {
    const url = await freshDatabase();
    const store = new PgPlanStore((await history(url)).pool);

    await store.put(send('reminder'));
    await store.put(send('reminder'));

    expect(await queryRows(url, 'SELECT kind, key, version::int AS version, plan FROM plans')).toEqual([
      { kind: 'send', key: 'reminder', version: 2, plan: send('reminder') },
    ]);
  });

  it('answers STORAGE_UNAVAILABLE when a statement outlasts the query timeout, and changes nothing', async () => {
    const url = await freshDatabase();
    const store = new PgPlanStore((await history(url, { queryTimeoutMs: 300 })).pool);
    const { version } = await store.put(send('reminder'));
    // Another session holds the row: the swap waits on its lock until the history's statement timeout cancels it.
    const blocker = new pg.Client(url);
    await blocker.connect();
    closers.push(() => blocker.end());
    await blocker.query('BEGIN');
    await blocker.query("SELECT 1 FROM plans WHERE key = 'reminder' FOR UPDATE");

    const swapped = store.swap('send', 'reminder', version, { ...send('reminder'), attemptAfter: 5_000 });

    await expect(swapped).rejects.toMatchObject({ code: 'STORAGE_UNAVAILABLE', retryAfterSeconds: 5 });
    await blocker.query('ROLLBACK');
    expect(await store.get('send', 'reminder')).toMatchObject({ version: 1 });
  });

  it('answers STORAGE_UNAVAILABLE for every call when the database cannot be reached', async () => {
    // A port nothing listens on: each connection is refused at once.
    const pool = new pg.Pool({ connectionString: 'postgres://nobody@127.0.0.1:1/none', connectionTimeoutMillis: 1_000, max: 1 });
    pool.on('error', () => undefined);
    closers.push(() => pool.end());
    const store = new PgPlanStore(pool);

    const calls = [
      store.open(),
      store.list(),
      store.get('send', 'x'),
      store.count(),
      store.put(send('x')),
      store.swap('send', 'x', 1, undefined),
      store.remove('send', 'x'),
    ];

    for (const call of calls) await expect(call).rejects.toMatchObject({ code: 'STORAGE_UNAVAILABLE' });
  });
});

describe('the plans migration', () => {
  it('brings a history at schema version 1 to the latest version at its next start, keeping its notifications', async () => {
    const url = await freshDatabase();
    const first = historyOn(url);
    await first.open();
    const record = makeRecord();
    await first.insert(record);
    await first.close();
    // The database as the release before plans left it.
    await queryRows(url, 'DROP TABLE plans');
    await queryRows(url, 'DELETE FROM schema_migrations WHERE version >= 2');

    const again = await history(url);
    const store = new PgPlanStore(again.pool);

    expect((await queryRows<{ version: number }>(url, 'SELECT version FROM schema_migrations ORDER BY version')).map((r) => r.version)).toEqual([1, 2, 3, 4]);
    expect(await again.get(record.id)).toEqual(record);
    expect(await store.put(send('reminder'))).toMatchObject({ version: 1 });
  });

  it('creates the schema when the plan store opens first, once with the history opening beside it', async () => {
    const url = await freshDatabase();
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    closers.push(() => pool.end());
    const store = new PgPlanStore(pool);

    await Promise.all([store.open(), history(url)]);

    expect((await queryRows<{ version: number }>(url, 'SELECT version FROM schema_migrations ORDER BY version')).map((r) => r.version)).toEqual([1, 2, 3, 4]);
    expect(await store.list()).toEqual([]);
  });
});
