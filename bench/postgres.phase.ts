import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { startPostgresCluster, type PostgresCluster } from '../services/notifications/test/support/postgres-cluster.js';
import { measureLatency, measureThroughput, type LoadResult } from './load.js';
import { assertAlive, compare, describeRun, type PhaseContext } from './phase.js';
import { makeTempDir, readProcessTreeCpuMs, removeTempDir, stopChild } from './processes.js';
import type { BenchResults, PostgresStage } from './results.js';
import { CREATE_BODY, createRequest, LIST_PATH, ROOT, startBare, startNotifications, type Running } from './services.js';

const MILLION = 1_000_000;
const SEED_BATCH = 100_000;

/** Rows like the YAML bench's (services/notifications/bench/storage-bench-data.ts), written in SQL: `from` to `to` - 1. */
function seedSql(from: number, to: number): string {
  return `
INSERT INTO notifications (id, recipient, record)
SELECT id, recipient, jsonb_build_object(
  'id', id, 'recipient', recipient,
  'title', 'Alert ' || g || ': disk usage above threshold',
  'message', 'Host server-' || (g % 97) || ' reports /var at ' || ((g % 40) + 60) || '% usage. Check the log rotation and old backups.',
  'priority', (g % 5) - 2, 'sound', 'pushover', 'url', 'https://monitoring.example.com/hosts/server-' || (g % 97),
  'read', g % 3 = 0, 'readAt', CASE WHEN g % 3 = 0 THEN at END, 'createdAt', at,
  'delivery', jsonb_build_object('status', 'sent', 'attempts', 1, 'request', md5(g::text), 'lastAttemptAt', at))
FROM (
  SELECT g, upper(lpad(to_hex(g), 26, '0')) AS id, 'recipient-' || (g % 20) AS recipient,
         to_char(timestamp '2026-01-01' + g * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at
  FROM generate_series(${from}, ${to - 1}) AS g
) AS rows`;
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function seedTo(url: string, from: number, to: number): Promise<number> {
  const started = performance.now();
  await withClient(url, async (client) => {
    for (let at = from; at < to; at += SEED_BATCH) await client.query(seedSql(at, Math.min(to, at + SEED_BATCH)));
    await client.query('ANALYZE notifications');
    await client.query('ANALYZE recipient_counts');
  });
  return Math.round(performance.now() - started);
}

/** The postmaster's pid, from its pid file: the root of the database's processes. */
const postmasterPid = (cluster: PostgresCluster) => Number(readFileSync(join(cluster.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);

const commits = (url: string) =>
  withClient(url, async (client) =>
    Number((await client.query<{ n: string }>('SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()')).rows[0]!.n),
  );

/** The plans of the first page and of the counts, as EXPLAIN (ANALYZE, BUFFERS) prints them, at 1,000,000 rows. */
async function explainPlans(url: string): Promise<string> {
  return withClient(url, async (client) => {
    const page = `SELECT record FROM notifications WHERE recipient = 'recipient-0' ORDER BY created_at DESC, seq DESC LIMIT 51`;
    const unread = `SELECT record FROM notifications WHERE recipient = 'recipient-0' AND NOT read ORDER BY created_at DESC, seq DESC LIMIT 51`;
    const counts = `SELECT total, unread FROM recipient_counts WHERE recipient = 'recipient-0'`;
    const parts: string[] = [];
    for (const [label, sql] of [
      ['first page', page],
      ['first page, unread only', unread],
      ['total and unread counts', counts],
    ] as const) {
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`);
      parts.push(`-- ${label}\n${sql};\n\n${rows.map((r) => r['QUERY PLAN']).join('\n')}\n`);
    }
    return parts.join('\n');
  });
}

/**
 * Issue 15: the notification service on PostgreSQL (a throwaway cluster on this machine): create throughput against
 * the bare Express ceiling at 10,000 and 1,000,000 rows, the first page at 1,000,000, and two instances on one database.
 */
export async function runPostgresPhase(ctx: PhaseContext, results: BenchResults): Promise<void> {
  const { connections, seconds, warmupSeconds, latencySeconds } = ctx.settings;
  const dir = makeTempDir('notifications-postgres');
  let cluster: PostgresCluster | undefined;
  let bare: Running | undefined;
  const services: Running[] = [];
  const ceilings: LoadResult[] = [];
  const postgres: NonNullable<BenchResults['postgres']> = { stages: [] };
  results.postgres = postgres;
  const ceiling = async () => {
    const run = await measureThroughput(createRequest(bare!.port), connections, seconds, warmupSeconds, bare!.child.pid);
    ceilings.push(run);
    describeRun(ctx, 'bare Express 5, create response', run);
    return run;
  };
  const start = async (name: string, url: string) => {
    const service = await startNotifications(join(dir, `${name}.yaml`), join(dir), undefined, { STORAGE_URL: url, LOG_LEVEL: 'warn', PG_POOL_MAX: '10' });
    services.push(service);
    return service;
  };
  try {
    cluster = await startPostgresCluster();
    const url = await cluster.createDatabase();
    const one = await start('one', url);
    const sample = await fetch(`http://127.0.0.1:${one.port}/notifications`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: CREATE_BODY,
    });
    bare = await startBare('bare create (postgres phase)', 'post', '/notifications', 201, await sample.text());
    let seeded = 0;
    for (const stored of [10_000, MILLION]) {
      const seedMs = await seedTo(url, seeded, stored);
      seeded = stored;
      ctx.log(`postgres: ${stored.toLocaleString('en-US')} rows seeded in ${seedMs} ms`);
      if (stored === MILLION) {
        postgres.listP50MsAtMillion = (await measureLatency(one.port, LIST_PATH, latencySeconds)).p50Ms;
        ctx.log(`postgres: first page at 1,000,000 rows, p50 ${postgres.listP50MsAtMillion.toFixed(2)} ms`);
        writeFileSync(
          join(ROOT, 'bench/results/postgres-plans.txt'),
          `# EXPLAIN (ANALYZE, BUFFERS) at 1,000,000 rows, written by pnpm bench (bench/postgres.phase.ts)\n\n${await explainPlans(url)}`,
        );
      }
      const before = ceilings.at(-1) ?? (await ceiling());
      const commitsBefore = await commits(url);
      const databaseCpuBefore = readProcessTreeCpuMs(postmasterPid(cluster));
      const run = await measureThroughput(createRequest(one.port), connections, seconds, warmupSeconds, one.child.pid);
      const databaseCpuAfter = readProcessTreeCpuMs(postmasterPid(cluster));
      // The statistics reach pg_stat_database within a second of each transaction.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const transactions = (await commits(url)) - commitsBefore;
      assertAlive(one.child, `the PostgreSQL create run at ${stored}`);
      describeRun(ctx, `notifications on PostgreSQL, create, ${stored.toLocaleString('en-US')} rows`, run);
      const stage: PostgresStage = { stored, seedMs, create: compare([run], [before, await ceiling()]) };
      // The measured run plus its warm-up: every request made.
      const requests = run.requests * ((seconds + warmupSeconds) / seconds);
      if (requests > 0) stage.transactionsPerCreate = transactions / requests;
      // Warm-up and measured run together, over every request made in them.
      if (databaseCpuBefore !== undefined && databaseCpuAfter !== undefined && requests > 0)
        stage.databaseCpuUsPerCreate = ((databaseCpuAfter - databaseCpuBefore) * 1000) / requests;
      postgres.stages.push(stage);
    }
    const two = await start('two', url);
    const half = Math.floor(connections / 2);
    const [a, b] = await Promise.all([
      measureThroughput(createRequest(one.port), half, seconds, warmupSeconds, one.child.pid),
      measureThroughput(createRequest(two.port), connections - half, seconds, warmupSeconds, two.child.pid),
    ]);
    const oneInstanceRps = postgres.stages.at(-1)!.create.serviceRps;
    postgres.twoInstances = { rps: a.rps + b.rps, oneInstanceRps, ratio: (a.rps + b.rps) / oneInstanceRps, non2xx: a.non2xx + b.non2xx };
    ctx.log(`postgres: two instances ${(a.rps + b.rps).toFixed(0)} req/s (one: ${oneInstanceRps.toFixed(0)} req/s)`);
  } catch (error) {
    ctx.fail('notifications on PostgreSQL', error);
  } finally {
    for (const service of services) await stopChild(service.child);
    if (bare) await stopChild(bare.child);
    await cluster?.destroy();
    removeTempDir(dir);
  }
}
