import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, OutOfTime, ServiceProcess, within } from '@homeops/test-kit';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakePushoverApi } from '../pushover/fake-pushover-api.js';
import { API_TOKEN, USER_KEY } from '../pushover/pushover-test-kit.js';
import { startPostgresCluster, type PostgresCluster } from '../support/postgres-cluster.js';
import { freshDatabase, queryRows } from '../support/postgres-database.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

/** A folder for attachments, removed after the test. */
async function makeDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'notifications-pg-faults-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A fresh database in the run's cluster, and a folder: for a test that neither stops nor restarts the server. */
async function setUp(): Promise<{ url: string; dir: string }> {
  return { url: await freshDatabase(), dir: await makeDir() };
}

/** Its own cluster (the test stops and restarts it), a database, and a folder. */
async function setUpOwnCluster(): Promise<{ cluster: PostgresCluster; url: string; dir: string }> {
  const cluster = await startPostgresCluster();
  cleanups.push(() => cluster.destroy());
  return { cluster, url: await cluster.createDatabase(), dir: await makeDir() };
}

async function start(env: Record<string, string>): Promise<ServiceProcess> {
  const service = await ServiceProcess.start({ service: 'notifications', env, readyTimeoutMs: 30_000 });
  cleanups.push(() => service.kill());
  return service;
}

/** One request, aborted after `timeoutMs`; with `withinMs`, an answer later than that fails with OutOfTime. */
async function call(base: string, method: string, path: string, body?: object, options: { timeoutMs?: number; withinMs?: number } = {}) {
  const { timeoutMs = 8_000, withinMs = timeoutMs } = options;
  const started = performance.now();
  return within(withinMs, `${method} ${path}`, async () => {
    const res = await fetch(`${base}${path}`, {
      method,
      signal: AbortSignal.timeout(timeoutMs),
      ...(body ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    // For the report line only.
    return { status: res.status, type: res.headers.get('content-type') ?? '', text, ms: Math.round(performance.now() - started) };
  });
}

/** Waits for `check` and returns how long that took, for the report line. */
async function timeUntil(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<number> {
  const started = performance.now();
  await eventually(check, { what, timeoutMs, intervalMs: 200 });
  return Math.round(performance.now() - started);
}

describe('several instances on one PostgreSQL, under faults', () => {
  it(
    'loses nothing acknowledged when one of two instances is killed under load, sends twice only what was on the wire at the kill, and the other finishes its deliveries',
    { timeout: 120_000 },
    async () => {
      const { url, dir } = await setUp();
      const fake = await startFakePushoverApi({ token: API_TOKEN, users: { [USER_KEY]: [] } });
      cleanups.push(() => fake.close());
      const env = {
        STORAGE_URL: url,
        STORAGE_PATH: join(dir, 'unused.yaml'),
        ATTACHMENTS_DIR: join(dir, 'attachments'),
        PROVIDER_USER_KEY: USER_KEY,
        PROVIDER_API_TOKEN: API_TOKEN,
        PROVIDER_API_URL: fake.url,
        PROVIDER_TIMEOUT_MS: '1000',
        DELIVERY_SWEEP_MS: '500',
        DELIVERY_RETRY_MIN_MS: '50',
        DELIVERY_RETRY_MAX_MS: '200',
        // The shortest lease that still outlasts an attempt (2 × (1 s + 2 s)) and 2 s: A's claims lapse sooner.
        DELIVERY_LEASE_MS: '8000',
      };
      const [a, b] = await Promise.all([start(env), start(env)]);
      const acked = new Map<string, string>();
      let n = 0;
      let killing = false;
      let loading = true;
      const drive = async (base: string) => {
        while (loading) {
          const message = `m-${++n}`;
          try {
            const res = await call(base, 'POST', '/notifications', { recipient: 'ops', message }, { timeoutMs: 5_000 });
            if (res.status === 201) acked.set((JSON.parse(res.text) as { id: string }).id, message);
          } catch {
            if (base === a.baseUrl && killing) return;
          }
        }
      };
      const load = [a.baseUrl, a.baseUrl, a.baseUrl, b.baseUrl, b.baseUrl, b.baseUrl].map((base) => drive(base));
      // The kill and the end of the load come after so many acknowledged creates, not after so many seconds.
      await eventually(() => acked.size >= 60, { what: '60 acknowledged creates before the kill', timeoutMs: 30_000 });
      killing = true;
      await a.kill();
      const diedAt = Date.now();
      const ackedAtKill = acked.size;
      await eventually(() => acked.size >= ackedAtKill + 60, { what: '60 more acknowledged creates, by B alone', timeoutMs: 30_000 });
      loading = false;
      await Promise.all(load);

      const stored = new Set((await queryRows<{ id: string }>(url, 'SELECT id FROM notifications')).map((r) => r.id));
      expect([...acked.keys()].filter((id) => !stored.has(id))).toEqual([]);
      expect(acked.size).toBeGreaterThan(100);
      // A's pending ones wait out its lease (8 s), then B's sweep takes them.
      const finishedMs = await timeUntil(
        async () => Number((await queryRows<{ n: string }>(url, "SELECT count(*) AS n FROM notifications WHERE status <> 'sent'"))[0]!.n) === 0,
        60_000,
        'every delivery sent',
      );
      const sends = new Map<string, number[]>();
      for (const c of fake.calls) if (c.endpoint === 'messages') sends.set(c.fields.message!, [...(sends.get(c.fields.message!) ?? []), c.at]);
      for (const message of acked.values()) expect(sends.has(message)).toBe(true);
      const twice = [...sends.entries()].filter(([, at]) => at.length > 1);
      // Only a send that was on the wire from A when it died can go out again: at most A's two connections.
      expect(twice.length).toBeLessThanOrEqual(2);
      for (const [, at] of twice) expect(at[0]!).toBeLessThanOrEqual(diedAt);
      expect(b.running).toBe(true);
      console.info(
        `kill -9 of one of two instances: ${acked.size} acknowledged, 0 lost, ${twice.length} sent twice (in flight at the kill), all delivered ${finishedMs} ms after the load`,
      );
    },
  );

  it('answers 503 with the common body while the database restarts, and recovers without a restart', { timeout: 90_000 }, async () => {
    const { cluster, url, dir } = await setUpOwnCluster();
    const service = await start({
      STORAGE_URL: url,
      STORAGE_PATH: join(dir, 'unused.yaml'),
      ATTACHMENTS_DIR: join(dir, 'a'),
      PG_CONNECT_TIMEOUT_MS: '1000',
      PG_QUERY_TIMEOUT_MS: '3000',
    });
    const acked = new Set<string>();
    const whileDown: Array<{ status: number; type: string; text: string; ms: number }> = [];
    const lateWhileDown: string[] = [];
    let down = false;
    let stop = false;
    const drive = async () => {
      for (let i = 0; !stop; i++) {
        const wasDown = down;
        const res = await call(
          service.baseUrl,
          i % 3 ? 'POST' : 'GET',
          i % 3 ? '/notifications' : '/notifications/ops',
          i % 3 ? { recipient: 'ops', message: `m-${i}` } : undefined,
          { withinMs: 4_000 },
        ).catch((err: unknown) => {
          if (err instanceof OutOfTime && wasDown && down) lateWhileDown.push(err.message);
          return undefined;
        });
        if (res?.status === 201) acked.add((JSON.parse(res.text) as { id: string }).id);
        if (res && wasDown && down) whileDown.push(res);
      }
    };
    const load = [drive(), drive(), drive()];
    // Each phase lasts until the load saw it: so many creates before, so many answers while down, so many after.
    await eventually(() => acked.size >= 20, { what: '20 acknowledged creates before the stop', timeoutMs: 20_000 });
    await cluster.stopServer();
    down = true;
    await eventually(() => whileDown.length >= 9, { what: '9 answers while the database is down', timeoutMs: 30_000 });
    const health = await call(service.baseUrl, 'GET', '/health', undefined, { withinMs: 3_000 });
    down = false;
    await cluster.startServer();
    const recoveredMs = await timeUntil(
      async () => (await call(service.baseUrl, 'POST', '/notifications', { recipient: 'ops', message: 'after' })).status === 201,
      20_000,
      'a create after the restart',
    );
    const ackedAtRecovery = acked.size;
    await eventually(() => acked.size >= ackedAtRecovery + 20, { what: '20 acknowledged creates after the restart', timeoutMs: 20_000 });
    stop = true;
    await Promise.all(load);

    expect(whileDown.length).toBeGreaterThan(3);
    expect(lateWhileDown).toEqual([]);
    for (const res of whileDown) {
      expect(res.status).toBe(503);
      expect(res.type).toMatch(/application\/json/);
      expect(JSON.parse(res.text)).toEqual(expect.objectContaining({ error: expect.any(String), solution: expect.any(String) }));
    }
    expect(health.status).toBe(503);
    expect(JSON.parse(health.text).storage).toMatchObject({ engine: 'postgres', writable: false });
    expect(service.running).toBe(true);
    const stored = new Set((await queryRows<{ id: string }>(url, 'SELECT id FROM notifications')).map((r) => r.id));
    expect([...acked].filter((id) => !stored.has(id))).toEqual([]);
    expect((await call(service.baseUrl, 'GET', '/health')).status).toBe(200);
    console.info(
      `database restart: ${whileDown.length} answers while down, all 503 (slowest ${Math.max(...whileDown.map((r) => r.ms))} ms), recovered ${recoveredMs} ms after the start, ${acked.size} acknowledged, 0 lost`,
    );
  });

  it('answers 503 in bounded time when every connection is busy, and serves again once they are free', { timeout: 60_000 }, async () => {
    const { url, dir } = await setUp();
    const service = await start({
      STORAGE_URL: url,
      STORAGE_PATH: join(dir, 'unused.yaml'),
      ATTACHMENTS_DIR: join(dir, 'a'),
      PG_POOL_MAX: '2',
      PG_CONNECT_TIMEOUT_MS: '500',
      PG_QUERY_TIMEOUT_MS: '2000',
    });
    expect((await call(service.baseUrl, 'POST', '/notifications', { recipient: 'ops', message: 'before' })).status).toBe(201);
    const blocker = new pg.Client(url);
    await blocker.connect();
    cleanups.push(() => blocker.end());
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE notifications IN ACCESS EXCLUSIVE MODE');
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        call(
          service.baseUrl,
          i % 2 ? 'GET' : 'POST',
          i % 2 ? '/notifications/ops' : '/notifications',
          i % 2 ? undefined : { recipient: 'ops', message: `m-${i}` },
          { withinMs: 4_000 },
        ),
      ),
    );
    const health = await call(service.baseUrl, 'GET', '/health', undefined, { withinMs: 3_000 });
    await blocker.query('COMMIT');

    for (const res of answers) {
      expect(res.status).toBe(503);
      expect(JSON.parse(res.text)).toEqual(expect.objectContaining({ error: expect.any(String), solution: expect.any(String) }));
    }
    expect(JSON.parse(health.text).storage.writable).toBe(false);
    expect((await call(service.baseUrl, 'POST', '/notifications', { recipient: 'ops', message: 'after' })).status).toBe(201);
    expect((await call(service.baseUrl, 'GET', '/health')).status).toBe(200);
    expect(service.running).toBe(true);
    console.info(`pool exhausted: 10 requests, all 503, slowest ${Math.max(...answers.map((r) => r.ms))} ms; /health in ${health.ms} ms`);
  });
});
