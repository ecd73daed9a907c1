// What the metrics cost: create throughput (POST /notifications) and GET /devices throughput with METRICS=on against
// METRICS=off, each service started twice, measured in alternation in one run. Writes bench/results/metrics-overhead.json.
// Usage: npx -y pnpm@10 exec tsx bench/metrics-overhead.ts   (BENCH_SECONDS, BENCH_ROUNDS, BENCH_SKIP_BUILD=1)
// BENCH_AA=1 runs both processes with METRICS=off (the noise floor of the machine) into bench/results/metrics-overhead-aa.json.
// BENCH_BRIDGE=1 compares the MQTT bridge and the metrics on (a throwaway Mosquitto on loopback) against both off,
// as issue 24 states its target, into bench/results/bridge-overhead.json.
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { machineOf, median, runBench } from './ab-report.js';
import { measureThroughput, type LoadRequest, type LoadResult } from './load.js';
import { installCleanupHandlers, makeTempDir, removeTempDir, stopChild } from './processes.js';
import { Mosquitto } from '../packages/test-kit/src/mosquitto.js';
import { buildServices, createRequest, ROOT, startDeviceControl, startNotifications, type Running } from './services.js';

const CONNECTIONS = 32;
const DEVICES = 50;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const WARMUP_SECONDS = 2;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const TARGET = 0.9;
const AA = process.env.BENCH_AA === '1';
const BRIDGE = process.env.BENCH_BRIDGE === '1';

type Variant = 'on' | 'off';

interface Comparison {
  /** Successful requests per second of each run, in the order measured. */
  on: number[];
  off: number[];
  /** Server CPU time per request (µs), median of the runs. */
  cpuUsPerRequest: Record<Variant, number>;
  /** Median req/s with metrics on over median req/s with metrics off. */
  ratio: number;
  /** Median over the rounds of on/off of the two runs of the round, measured back to back under the same load. */
  pairedRatio: number;
  /** Best run over best run: other load on the machine only ever slows a run down. */
  bestRatio: number;
  /** Median server CPU per request with metrics off over with metrics on (1: the same cost). */
  cpuRatio: number;
  met: boolean;
}

/** Runs the same load against both processes, alternating which goes first in each round. */
async function compare(what: string, services: Record<Variant, Running>, request: (port: number) => LoadRequest): Promise<Comparison> {
  const runs: Record<Variant, LoadResult[]> = { on: [], off: [] };
  for (let round = 0; round < ROUNDS; round++) {
    const order: Variant[] = round % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
    for (const variant of order) {
      const service = services[variant];
      const run = await measureThroughput(request(service.port), CONNECTIONS, SECONDS, WARMUP_SECONDS, service.child.pid);
      if (run.non2xx > 0 || run.errors > 0) throw new Error(`${what} METRICS=${variant}: ${run.non2xx} non-2xx, ${run.errors} errors`);
      runs[variant].push(run);
      console.log(`${what} METRICS=${variant}: ${run.rps.toFixed(0)} req/s, ${run.serverCpuUsPerRequest?.toFixed(1) ?? '?'} µs CPU per request`);
    }
  }
  const rps = (variant: Variant) => runs[variant].map((r) => Math.round(r.rps));
  const cpu = (variant: Variant) => median(runs[variant].map((r) => r.serverCpuUsPerRequest ?? NaN));
  const ratio = median(rps('on')) / median(rps('off'));
  const pairedRatio = median(runs.on.map((run, round) => run.rps / runs.off[round]!.rps));
  const bestRatio = Math.max(...rps('on')) / Math.max(...rps('off'));
  const cpuRatio = cpu('off') / cpu('on');
  return { on: rps('on'), off: rps('off'), cpuUsPerRequest: { on: cpu('on'), off: cpu('off') }, ratio, pairedRatio, bestRatio, cpuRatio, met: ratio >= TARGET };
}

async function main(): Promise<void> {
  installCleanupHandlers();
  if (process.env.BENCH_SKIP_BUILD !== '1') await buildServices();
  const startedAt = new Date().toISOString();
  const load = loadavg()[0]!;
  const dirs: string[] = [];
  const started: Running[] = [];
  const dirFor = (name: string) => {
    const dir = makeTempDir(name);
    dirs.push(dir);
    return dir;
  };
  const broker = BRIDGE ? await Mosquitto.start() : undefined;
  // The variables of each variant: with BENCH_BRIDGE the bridge (to every recipient the load creates for) and the metrics.
  const envOf = (variant: Variant, service: 'notifications' | 'device-control'): Record<string, string> => {
    const metrics = { METRICS: AA ? 'off' : variant };
    if (!broker || variant === 'off') return metrics;
    return { ...metrics, MQTT_URL: broker.url, ...(service === 'notifications' ? { MQTT_RECIPIENTS: 'recipient-0' } : {}) };
  };
  try {
    const notifications = {} as Record<Variant, Running>;
    const devices = {} as Record<Variant, Running>;
    for (const variant of ['on', 'off'] as const) {
      const dir = dirFor(`metrics-${variant}`);
      notifications[variant] = await startNotifications(join(dir, 'notifications.yaml'), dir, undefined, envOf(variant, 'notifications'));
      devices[variant] = await startDeviceControl(DEVICES, dirFor(`metrics-dc-${variant}`), envOf(variant, 'device-control'));
      started.push(notifications[variant], devices[variant]);
    }
    // The processes not measured at a time sit idle, so each measured one has the same two cores to itself.
    const create = await compare('POST /notifications', notifications, createRequest);
    const list = await compare('GET /devices', devices, (port) => ({ port, method: 'GET', path: '/devices' }));
    const report = {
      command: `${AA ? 'BENCH_AA=1 ' : ''}${BRIDGE ? 'BENCH_BRIDGE=1 ' : ''}npx -y pnpm@10 exec tsx bench/metrics-overhead.ts`,
      ...(AA ? { note: 'A/A: both processes run with METRICS=off; "on" is the one started first' } : {}),
      ...(BRIDGE ? { note: '"on": the MQTT bridge (a Mosquitto on loopback) and the metrics; "off": neither' } : {}),
      startedAt,
      machine: machineOf(load),
      settings: { connections: CONNECTIONS, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, rounds: ROUNDS, devices: DEVICES, target: TARGET },
      create,
      devices: list,
    };
    const file = AA ? 'bench/results/metrics-overhead-aa.json' : BRIDGE ? 'bench/results/bridge-overhead.json' : 'bench/results/metrics-overhead.json';
    writeFileSync(join(ROOT, file), `${JSON.stringify(report, null, 2)}\n`);
    const line = (name: string, c: Comparison) =>
      `${name}: ${(c.ratio * 100).toFixed(1)} % of off by median req/s (${median(c.on)} vs ${median(c.off)}), ${(c.pairedRatio * 100).toFixed(1)} % by round, ${(c.bestRatio * 100).toFixed(1)} % by best run, ` +
      `${(c.cpuRatio * 100).toFixed(1)} % by server CPU per request (${c.cpuUsPerRequest.on.toFixed(1)} vs ${c.cpuUsPerRequest.off.toFixed(1)} µs)${c.met ? '' : ' MISSED'}`;
    console.log(line('create', create));
    console.log(line('GET /devices', list));
  } finally {
    for (const service of started) await stopChild(service.child);
    await broker?.close();
    for (const dir of dirs) removeTempDir(dir);
  }
}

runBench(main);
