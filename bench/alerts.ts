// Issue 25's alert benchmarks, in one run:
// 1. Webhook ingestion against plain creates: POST /hooks/alertmanager (one alert per call) against POST /notifications
//    of the same notification, on one service (delivery off), alternating rounds (target: at least 80 %).
// 2. An alert storm: 1,000 alerts at once (ten Alertmanager calls of 100) against a fake Pushover answering each message
//    in 100 ms: delivery throughput as a share of what Pushover's two connections allow (20 per second; target: at
//    least 90 %), while a create every second measures how promptly single creates are still answered (its messages
//    share Pushover's connections, so the throughput counts every message sent during the storm, alerts apart too).
// Writes bench/results/alerts-bench.json. Usage: npx -y pnpm@10 exec tsx bench/alerts.ts   (BENCH_SECONDS, BENCH_ROUNDS, BENCH_SKIP_BUILD=1)
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { startFakePushoverApi } from '../services/notifications/test/pushover/fake-pushover-api.js';
import { machineOf, median, runBench } from './ab-report.js';
import { measureThroughput, percentile, type LoadResult } from './load.js';
import { installCleanupHandlers, makeTempDir, removeTempDir, stopChild } from './processes.js';
import { buildServices, ROOT, startNotifications } from './services.js';

const CONNECTIONS = 32;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const STORM_ALERTS = 1_000;
const STORM_CALLS = 10;
const PUSHOVER_MS = 100;
const PUSHOVER_RATE = 2 / (PUSHOVER_MS / 1000);
const TOKEN = 'bEnChToKeN00000000000000000001';
const USER = 'bEnChUsEr000000000000000000001';
const OPS = 'bEnChOpS0000000000000000000001';

const firing = JSON.parse(readFileSync(join(ROOT, 'services/notifications/test/fixtures/hooks/alertmanager-firing.json'), 'utf8')) as {
  alerts: Array<Record<string, unknown> & { labels: Record<string, string>; fingerprint: string }>;
};
const alert = firing.alerts[0]!;

async function ingestion(dir: string) {
  const service = await startNotifications(join(dir, 'ingest.yaml'), dir, undefined, { METRICS: 'off' });
  try {
    // Alerts of a thousand different identities, as a busy Alertmanager sends them (one identity is handled in turn).
    const bodies = Array.from({ length: 1_000 }, (_, i) => JSON.stringify({ ...firing, alerts: [{ ...alert, fingerprint: `fp-${i}` }] }));
    const hook = { port: service.port, method: 'POST' as const, path: '/hooks/alertmanager?recipient=recipient-0', bodies };
    const create = {
      port: service.port,
      method: 'POST' as const,
      path: '/notifications',
      body: JSON.stringify({
        recipient: 'recipient-0',
        title: 'DiskFailing on nas:9100',
        message: 'SMART reports /dev/sda failing on nas',
        priority: 2,
        url: 'http://prometheus.lan:9090/graph',
      }),
    };
    const runs: Record<'hook' | 'create', LoadResult[]> = { hook: [], create: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const variant of round % 2 === 0 ? (['create', 'hook'] as const) : (['hook', 'create'] as const)) {
        const run = await measureThroughput(variant === 'hook' ? hook : create, CONNECTIONS, SECONDS, 2, service.child.pid);
        if (run.non2xx > 0 || run.errors > 0) throw new Error(`${variant}: ${run.non2xx} non-2xx, ${run.errors} errors (${JSON.stringify(run.statusCodes)})`);
        runs[variant].push(run);
        console.log(`${variant}: ${run.rps.toFixed(0)} req/s, ${run.serverCpuUsPerRequest?.toFixed(1) ?? '?'} µs CPU per request`);
      }
    }
    const rps = (v: 'hook' | 'create') => runs[v].map((r) => Math.round(r.rps));
    const ratio = median(rps('hook')) / median(rps('create'));
    const pairedRatio = median(runs.hook.map((run, i) => run.rps / runs.create[i]!.rps));
    const cpu = (v: 'hook' | 'create') => median(runs[v].map((r) => r.serverCpuUsPerRequest ?? NaN));
    return {
      hook: rps('hook'),
      create: rps('create'),
      cpuUsPerRequest: { hook: cpu('hook'), create: cpu('create') },
      ratio,
      pairedRatio,
      cpuRatio: cpu('create') / cpu('hook'),
      target: 0.8,
      met: ratio >= 0.8,
    };
  } finally {
    await stopChild(service.child);
  }
}

async function storm(dir: string) {
  const fake = await startFakePushoverApi({ token: TOKEN, users: { [USER]: [], [OPS]: ['phone'] }, messageDelayMs: PUSHOVER_MS });
  const service = await startNotifications(join(dir, 'storm.yaml'), dir, undefined, {
    METRICS: 'off',
    PROVIDER_USER_KEY: USER,
    PROVIDER_API_TOKEN: TOKEN,
    PROVIDER_API_URL: fake.url,
    RECIPIENTS: `ops=${OPS}`,
  });
  const base = `http://127.0.0.1:${service.port}`;
  try {
    const batch = (call: number) => ({
      ...firing,
      alerts: Array.from({ length: STORM_ALERTS / STORM_CALLS }, (_, i) => ({
        ...alert,
        labels: { ...alert.labels, severity: 'warning', device: `sd${call}-${i}` },
        fingerprint: `${call.toString(16)}-${i.toString(16)}`,
      })),
    });
    const latencies: number[] = [];
    let storming = true;
    const probe = (async () => {
      while (storming) {
        const started = performance.now();
        const res = await fetch(`${base}/notifications`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ recipient: 'ops', message: 'a single create during the storm' }),
        });
        await res.arrayBuffer();
        latencies.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    })();
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: STORM_CALLS }, async (_, call) => {
        const res = await fetch(`${base}/hooks/alertmanager?recipient=ops`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(batch(call)),
        });
        await res.arrayBuffer();
        return { status: res.status, ms: performance.now() - started };
      }),
    );
    const deadline = Date.now() + 180_000;
    const alertCalls = () => fake.calls.filter((c) => c.endpoint === 'messages' && c.fields.title?.startsWith('DiskFailing'));
    while (alertCalls().length < STORM_ALERTS && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    storming = false;
    await probe;
    const calls = alertCalls();
    if (calls.length < STORM_ALERTS) throw new Error(`only ${calls.length} of ${STORM_ALERTS} alerts reached Pushover in 3 minutes`);
    const first = calls[0]!.at;
    const last = calls[calls.length - 1]!.at;
    // The last call is answered 100 ms after it arrives: the span of the storm is first arrival to last answer.
    const seconds = (last + PUSHOVER_MS - first) / 1000;
    const sent = fake.calls.filter((c) => c.endpoint === 'messages' && c.at >= first && c.at <= last).length;
    const rate = sent / seconds;
    const sorted = [...latencies].sort((a, b) => a - b);
    return {
      alerts: STORM_ALERTS,
      calls: STORM_CALLS,
      pushoverAnswerMs: PUSHOVER_MS,
      webhookAnsweredMs: answers.map((a) => Math.round(a.ms)),
      webhookStatuses: answers.map((a) => a.status),
      deliverySeconds: Number(seconds.toFixed(2)),
      messagesDuringStorm: sent,
      deliveriesPerSecond: Number(rate.toFixed(2)),
      alertsPerSecond: Number((STORM_ALERTS / seconds).toFixed(2)),
      pushoverAllows: PUSHOVER_RATE,
      share: rate / PUSHOVER_RATE,
      target: 0.9,
      met: rate / PUSHOVER_RATE >= 0.9,
      singleCreatesDuringStorm: {
        count: sorted.length,
        p50Ms: Math.round(percentile(sorted, 0.5)),
        p99Ms: Math.round(percentile(sorted, 0.99)),
        maxMs: Math.round(sorted.at(-1) ?? 0),
      },
    };
  } finally {
    await stopChild(service.child);
    await fake.close();
  }
}

async function main(): Promise<void> {
  installCleanupHandlers();
  if (process.env.BENCH_SKIP_BUILD !== '1') await buildServices();
  const startedAt = new Date().toISOString();
  const load = loadavg()[0]!;
  const dir = makeTempDir('alerts');
  try {
    const ingest = await ingestion(dir);
    const stormResult = await storm(dir);
    const report = {
      command: 'npx -y pnpm@10 exec tsx bench/alerts.ts',
      startedAt,
      machine: machineOf(load),
      settings: { connections: CONNECTIONS, seconds: SECONDS, rounds: ROUNDS },
      ingestion: ingest,
      storm: stormResult,
    };
    writeFileSync(join(ROOT, 'bench/results/alerts-bench.json'), `${JSON.stringify(report, null, 2)}\n`);
    console.log(
      `webhook ingestion: ${(ingest.ratio * 100).toFixed(1)} % of plain creates (paired ${(ingest.pairedRatio * 100).toFixed(1)} %)${ingest.met ? '' : ' MISSED'}`,
    );
    console.log(
      `storm: ${stormResult.deliveriesPerSecond}/s = ${(stormResult.share * 100).toFixed(1)} % of Pushover's 20/s${stormResult.met ? '' : ' MISSED'} ` +
        `(the alerts alone ${stormResult.alertsPerSecond}/s); ` +
        `single creates meanwhile p50 ${stormResult.singleCreatesDuringStorm.p50Ms} ms, p99 ${stormResult.singleCreatesDuringStorm.p99Ms} ms`,
    );
  } finally {
    removeTempDir(dir);
  }
}

runBench(main);
