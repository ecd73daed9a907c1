// Issue 32 item 1: webhook bodies built to make template rendering explode, posted with a send-only token to the built
// notification service (delivery off), once with Node's default heap and once with `--max-old-space-size=512`. For
// each body: the answer's time and status, the slowest /health answer while it was in flight (polled every 20 ms),
// and the peak RSS above the service's RSS before it. Bodies: the 96 KB array bomb (an Alertmanager label of 16,000
// items, which the title renders inside a section over itself), 100 alerts each with a 150-item label (the most
// rendering a built-in template does per call), and a 1 MB body (above the 100 KB JSON limit: refused unread). Then,
// in process, renderHook over array bombs of 64 KB to 1 MB (bodies the route would refuse) to show the time is linear.
// Writes bench/results/hook-bomb-bench.json. Usage: npx -y pnpm@10 exec tsx bench/hook-bomb.ts   (BENCH_SKIP_BUILD=1)
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { machineOf, median, runBench } from './ab-report.js';
import { httpGet, installCleanupHandlers, makeTempDir, readMemory, removeTempDir, stopChild } from './processes.js';
import { buildServices, resetPeakRss, ROOT, startNotifications } from './services.js';

const API_KEY = 'bench-key-'.padEnd(48, 'x');
const REPEATS = 5;
const TARGETS = { answerMs: 2_000, healthMs: 1_000, rssGrowthMb: 150 };

const alertWith = (instance: unknown, i = 0) => ({
  status: 'firing',
  labels: { alertname: 'DiskFailing', severity: 'critical', instance },
  annotations: { summary: 'SMART reports /dev/sda failing' },
  fingerprint: `fp-${i}`,
});
const arrayBomb = (bytes: number) => JSON.stringify({ alerts: [alertWith(Array.from({ length: Math.floor(bytes / 6) }, () => 'nas'))] });
const BODIES: Record<string, string> = {
  arrayBomb96KB: arrayBomb(96_000),
  hundredAlertsOf150Items: JSON.stringify({
    alerts: Array.from({ length: 100 }, (_, i) =>
      alertWith(
        Array.from({ length: 150 }, () => 'n'),
        i,
      ),
    ),
  }),
  oneMegabyte: arrayBomb(1_000_000),
};

/** Posts `body` once while polling /health; the answer, the slowest /health and the RSS peak above `baseRss`. */
async function postWatched(port: number, pid: number, secret: string, body: string) {
  const baseRss = readMemory(pid)!.rssMb;
  resetPeakRss(pid);
  let inFlight = true;
  let slowestHealthMs = 0;
  const health = (async () => {
    while (inFlight) {
      const started = performance.now();
      const res = await httpGet(port, '/health', 30_000);
      if (res.status !== 200) throw new Error(`/health answered ${res.status} during a hook`);
      slowestHealthMs = Math.max(slowestHealthMs, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  const started = performance.now();
  const res = await fetch(`http://127.0.0.1:${port}/hooks/alertmanager?recipient=ops`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body,
  });
  await res.arrayBuffer();
  const answerMs = performance.now() - started;
  inFlight = false;
  await health;
  return { status: res.status, answerMs, slowestHealthMs, rssGrowthMb: readMemory(pid)!.peakRssMb - baseRss };
}

async function serviceRun(nodeOptions: string | undefined) {
  const dir = makeTempDir('hook-bomb');
  const env: Record<string, string> = { API_KEY, TOKENS_FILE: join(dir, 'tokens.json'), METRICS: 'off', LOG_LEVEL: 'warn' };
  if (nodeOptions) env.NODE_OPTIONS = nodeOptions;
  const service = await startNotifications(join(dir, 'notifications.yaml'), dir, undefined, env);
  try {
    const created = await fetch(`http://127.0.0.1:${service.port}/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ label: 'send only', scopes: [{ scope: 'notifications:send', recipients: ['ops'] }] }),
    });
    if (created.status !== 201) throw new Error(`POST /tokens answered ${created.status}: ${await created.text()}`);
    const { secret } = (await created.json()) as { secret: string };
    // Warm: the route, the template cache and the JIT, as on a service that has run a while.
    await postWatched(service.port, service.child.pid, secret, JSON.stringify({ alerts: [alertWith('nas:9100', 99)] }));
    const bodies: Record<string, unknown> = {};
    for (const [name, body] of Object.entries(BODIES)) {
      const runs = [];
      for (let i = 0; i < REPEATS; i++) runs.push(await postWatched(service.port, service.child.pid, secret, body));
      const worst = {
        answerMs: Math.max(...runs.map((r) => r.answerMs)),
        healthMs: Math.max(...runs.map((r) => r.slowestHealthMs)),
        rssGrowthMb: Math.max(...runs.map((r) => r.rssGrowthMb)),
      };
      bodies[name] = {
        bytes: body.length,
        statuses: runs.map((r) => r.status),
        answerMs: { median: median(runs.map((r) => r.answerMs)), max: worst.answerMs },
        slowestHealthMs: worst.healthMs,
        rssGrowthMbMax: worst.rssGrowthMb,
        met: worst.answerMs <= TARGETS.answerMs && worst.healthMs <= TARGETS.healthMs && worst.rssGrowthMb <= TARGETS.rssGrowthMb,
      };
      console.log(`${nodeOptions ?? 'default heap'} ${name}: ${JSON.stringify(bodies[name])}`);
    }
    const alive = service.child.exited === undefined && (await httpGet(service.port, '/health')).status === 200;
    return { nodeOptions: nodeOptions ?? null, startupMs: service.startupMs, bodies, aliveAfter: alive };
  } finally {
    await stopChild(service.child);
    removeTempDir(dir);
  }
}

/**
 * renderHook alone over bodies of growing size (median of 5, in ms): array bombs (the view keeps 100 items, so the time
 * stays flat) and labels of many keys (each key is copied into the view once, so the time grows linearly).
 */
async function inProcessRender() {
  // Imported once built: the template module reads @homeops/common's build.
  const { loadHookTemplates } = await import('../services/notifications/src/adapters/hooks/hook-template.js');
  const { renderHook } = await import('../services/notifications/src/adapters/hooks/render-hook.js');
  const template = loadHookTemplates(undefined).get('alertmanager')!;
  const manyKeys = (bytes: number) =>
    JSON.stringify({
      alerts: [{ ...alertWith('nas:9100'), labels: Object.fromEntries(Array.from({ length: Math.floor(bytes / 12) }, (_, i) => [`k${i}`, 'v'])) }],
    });
  const timed = (text: string) => {
    const body = JSON.parse(text) as object;
    const times = Array.from({ length: 5 }, () => {
      const started = performance.now();
      renderHook('alertmanager', template, body, { recipient: 'ops' });
      return performance.now() - started;
    });
    return { bytes: text.length, renderMs: median(times) };
  };
  const sizes = [64_000, 256_000, 1_000_000];
  return { arrayBomb: sizes.map((bytes) => timed(arrayBomb(bytes))), manyKeys: sizes.map((bytes) => timed(manyKeys(bytes))) };
}

async function main(): Promise<void> {
  installCleanupHandlers();
  if (process.env.BENCH_SKIP_BUILD !== '1') await buildServices();
  const startedAt = new Date().toISOString();
  const loadStart = loadavg()[0]!;
  const service = [await serviceRun(undefined), await serviceRun('--max-old-space-size=512')];
  const inProcess = await inProcessRender();
  console.log(`in process: ${JSON.stringify(inProcess)}`);
  const report = {
    command: 'npx -y pnpm@10 exec tsx bench/hook-bomb.ts',
    startedAt,
    machine: machineOf(loadStart),
    targets: TARGETS,
    service,
    inProcessRender: inProcess,
    met: service.every((run) => run.aliveAfter && Object.values(run.bodies).every((b) => (b as { met: boolean }).met)),
  };
  writeFileSync(join(ROOT, 'bench/results/hook-bomb-bench.json'), `${JSON.stringify(report, null, 2)}\n`);
  console.log(`met: ${report.met}; written to bench/results/hook-bomb-bench.json`);
}

runBench(main);
