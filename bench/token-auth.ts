// What a scoped token costs against the single API key (issue 26: at most 5 % of create throughput): one notification
// service with API_KEY set, loaded in alternating rounds with the key and with a token limited to notifications:send
// for the one recipient the load writes to (so the recipient check runs too). Same process, same history, same
// moment: only the credential differs. Writes bench/results/token-auth-bench.json.
// Usage: npx -y pnpm@10 exec tsx bench/token-auth.ts   (BENCH_SECONDS, BENCH_ROUNDS, BENCH_SKIP_BUILD=1)
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { machineOf, median, runBench } from './ab-report.js';
import { measureThroughput, type LoadResult } from './load.js';
import { installCleanupHandlers, makeTempDir, removeTempDir, stopChild } from './processes.js';
import { buildServices, createRequest, ROOT, startNotifications } from './services.js';

const CONNECTIONS = 32;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const WARMUP_SECONDS = 2;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const TARGET = 0.95;
const API_KEY = 'bench-key-'.padEnd(48, 'x');

type Variant = 'key' | 'token';

async function main(): Promise<void> {
  installCleanupHandlers();
  if (process.env.BENCH_SKIP_BUILD !== '1') await buildServices();
  const startedAt = new Date().toISOString();
  const loadStart = loadavg()[0]!;
  const dir = makeTempDir('token-auth');
  const service = await startNotifications(join(dir, 'notifications.yaml'), dir, undefined, {
    API_KEY,
    TOKENS_FILE: join(dir, 'tokens.json'),
    METRICS: 'off',
  });
  try {
    const created = await fetch(`http://127.0.0.1:${service.port}/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ label: 'bench', scopes: [{ scope: 'notifications:send', recipients: ['recipient-0'] }] }),
    });
    if (created.status !== 201) throw new Error(`POST /tokens answered ${created.status}: ${await created.text()}`);
    const { secret } = (await created.json()) as { secret: string };
    const credential: Record<Variant, string> = { key: API_KEY, token: secret };
    const runs: Record<Variant, LoadResult[]> = { key: [], token: [] };
    for (let round = 0; round < ROUNDS; round++) {
      const order: Variant[] = round % 2 === 0 ? ['key', 'token'] : ['token', 'key'];
      for (const variant of order) {
        const request = { ...createRequest(service.port), headers: { authorization: `Bearer ${credential[variant]}` } };
        const run = await measureThroughput(request, CONNECTIONS, SECONDS, WARMUP_SECONDS, service.child.pid);
        if (run.non2xx > 0 || run.errors > 0) throw new Error(`${variant}: ${run.non2xx} non-2xx, ${run.errors} errors (${JSON.stringify(run.statusCodes)})`);
        runs[variant].push(run);
        console.log(`create with the ${variant}: ${run.rps.toFixed(0)} req/s, ${run.serverCpuUsPerRequest?.toFixed(1) ?? '?'} µs CPU per request`);
      }
    }
    const rps = (variant: Variant) => runs[variant].map((r) => Math.round(r.rps));
    const cpu = (variant: Variant) => median(runs[variant].map((r) => r.serverCpuUsPerRequest ?? NaN));
    const ratio = median(rps('token')) / median(rps('key'));
    const pairedRatio = median(runs.token.map((run, round) => run.rps / runs.key[round]!.rps));
    const cpuRatio = cpu('key') / cpu('token');
    const report = {
      command: 'npx -y pnpm@10 exec tsx bench/token-auth.ts',
      startedAt,
      machine: machineOf(loadStart),
      settings: { connections: CONNECTIONS, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, rounds: ROUNDS, target: TARGET },
      create: {
        key: rps('key'),
        token: rps('token'),
        cpuUsPerRequest: { key: cpu('key'), token: cpu('token') },
        ratio,
        pairedRatio,
        cpuRatio,
        met: ratio >= TARGET,
      },
    };
    writeFileSync(join(ROOT, 'bench/results/token-auth-bench.json'), `${JSON.stringify(report, null, 2)}\n`);
    console.log(
      `create with a token: ${(ratio * 100).toFixed(1)} % of the key by median req/s (${median(rps('token'))} vs ${median(rps('key'))}), ` +
        `${(pairedRatio * 100).toFixed(1)} % by round, ${(cpuRatio * 100).toFixed(1)} % by server CPU per request${report.create.met ? '' : ' MISSED'}`,
    );
  } finally {
    await stopChild(service.child);
    removeTempDir(dir);
  }
}

runBench(main);
