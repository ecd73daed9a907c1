import type { LoadResult } from './load.js';
import { int, ms, pct, row, us } from './report-format.js';
import type { BenchResults, PostgresResults, PostgresStage } from './results.js';

/**
 * What N instances on N machines would carry, from the costs measured per create: each instance is bound by its own
 * CPU per create, the one database by its CPU per create; the smaller of the two is the ceiling.
 */
export function estimateScaling(
  stage: PostgresStage,
  instances: number[],
): Array<{ instances: number; rps: number; bound: 'instances' | 'database' }> | undefined {
  const service = stage.create.service.serverCpuUsPerRequest;
  const database = stage.databaseCpuUsPerCreate;
  if (service === undefined || database === undefined || service <= 0 || database <= 0) return undefined;
  // One core per instance (Node runs a request on one thread); the database on the 2 cores of a machine like this one.
  const perInstance = 1e6 / service;
  const databaseCeiling = (2 * 1e6) / database;
  return instances.map((n) =>
    n * perInstance <= databaseCeiling ? { instances: n, rps: n * perInstance, bound: 'instances' } : { instances: n, rps: databaseCeiling, bound: 'database' },
  );
}

function stageRow(stage: PostgresStage): string {
  const run: LoadResult = stage.create.service;
  return row([
    int(stage.stored),
    ms(stage.seedMs),
    int(run.rps),
    ms(run.p50Ms),
    ms(run.p99Ms),
    us(run.serverCpuUsPerRequest),
    us(stage.databaseCpuUsPerCreate),
    stage.transactionsPerCreate === undefined ? '–' : stage.transactionsPerCreate.toFixed(2),
    int(run.non2xx),
    `**${pct(stage.create.ratio)}**`,
  ]);
}

function scalingLines(postgres: PostgresResults): string[] {
  const last = postgres.stages.at(-1);
  const estimate = last && estimateScaling(last, [1, 2, 4, 8]);
  if (!last || !estimate) return [];
  return [
    `On paper, from the costs measured at ${int(last.stored)} rows: an instance spends ${us(last.create.service.serverCpuUsPerRequest)} of CPU per create on one core ` +
      `(about ${int(1e6 / last.create.service.serverCpuUsPerRequest!)} creates/s per instance on a machine of its own), the database ${us(last.databaseCpuUsPerCreate)} ` +
      `(about ${int(2e6 / last.databaseCpuUsPerCreate!)} creates/s on two cores like these), with ${last.transactionsPerCreate?.toFixed(2) ?? '–'} database transactions per create: ` +
      'creates that arrive while a write is under way share the next INSERT statement (one round trip, one commit, one WAL flush, one update of the counts row per recipient) ' +
      'and their events one NOTIFY. The estimate assumes those costs per create hold; with the load spread over more instances each one batches less, ' +
      "so the database's share grows toward its cost for a create alone. Creates for one recipient queue on that recipient's counts row, one batch per WAL flush, however many instances there are.",
    '',
    row(['Instances (one machine each)', 'Creates/s carried', 'Bound by']),
    row(['---:', '---:', '---']),
    ...estimate.map((e) => row([e.instances, int(e.rps), e.bound === 'instances' ? "the instances' CPU" : "the database's CPU (2 cores)"])),
    '',
  ];
}

/** docs/benchmarks.md's PostgreSQL section (issue 15). */
export function renderPostgresSection(results: BenchResults): string[] {
  const postgres = results.postgres;
  if (!postgres) return [];
  const { connections, seconds, warmupSeconds } = results.settings;
  const two = postgres.twoInstances;
  return [
    '## notifications on PostgreSQL (issue 15)',
    '',
    `A throwaway PostgreSQL cluster on 127.0.0.1 (fsync on, shared_buffers 64 MB), the service with \`STORAGE_URL\` and \`PG_POOL_MAX=10\`; ${connections} connections, ` +
      `${seconds} s measured after ${warmupSeconds} s warm-up, the same create body as above, against the bare Express 5 ceiling measured just before and after. ` +
      'Rows are seeded in SQL, like the YAML histories above. Database CPU is the postmaster and its backends (`/proc`), transactions from `pg_stat_database.xact_commit`, both over the warm-up and the measured run.',
    '',
    row(['Rows', 'Seed', 'req/s', 'p50', 'p99', 'Service CPU / create', 'Database CPU / create', 'Transactions / create', 'non-2xx', 'Ratio to ceiling']),
    row(['---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:']),
    ...postgres.stages.map(stageRow),
    '',
    `First page of a recipient (\`GET /notifications/recipient-0\`) at 1,000,000 rows, one request at a time: p50 **${ms(postgres.listP50MsAtMillion)}**. ` +
      'The plans (`EXPLAIN (ANALYZE, BUFFERS)`) of the first page and of the counts are in [postgres-plans.txt](../bench/results/postgres-plans.txt).',
    '',
    two
      ? `Two instances on the same database at 1,000,000 rows, the connections split over both: **${int(two.rps)} req/s** against ${int(two.oneInstanceRps)} for one ` +
        `(${two.ratio.toFixed(2)}×, ${int(two.non2xx)} non-2xx). Both instances, the database and the load generator share this machine's ${results.machine.cores} cores, so this shows no scaling; the estimate below does.`
      : 'Two instances: not measured (see problems).',
    '',
    ...scalingLines(postgres),
  ];
}
