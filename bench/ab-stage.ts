// The stages `pnpm bench` flagged between two commits, again with one harness for both: this checkout's bench code
// seeds each history once and starts the built service of either checkout on a copy of it, the two alternating in
// every round. What `side-by-side.sh` cannot tell apart (each commit runs its own bench code there) is the service.
// Measures startup and RSS with 100,000 stored, and with 1,000,000 stored the create runs after the same steps as
// the bench (startup, two full collections, a list latency run), their server CPU per request included.
// `--workload requests` (a fast path on trial) measures the request path alone instead: a fresh history, creates and
// GET /sounds, their server CPU per request.
// Usage: npx -y pnpm@10 exec tsx bench/ab-stage.ts <old checkout> <new checkout> [rounds, default 2]
//   [--workload stored|requests] [--out file] (each checkout built: `pnpm bench` or
//   `tsc -b services/notifications/tsconfig.build.json`). Writes bench/results/ab-stage.json unless --out says.
import { execFileSync } from 'node:child_process';
import { cpSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { machineOf, median, runBench } from './ab-report.js';
import { measureLatency, measureThroughput, type LoadRequest } from './load.js';
import { installCleanupHandlers, makeTempDir, readMemory, removeTempDir, stopChild } from './processes.js';
import { createRequest, LIST_PATH, liveMemory, ROOT, seedHistory, startNotifications, type Running } from './services.js';

const CONNECTIONS = 32;
const SECONDS = 10;
const WARMUP_SECONDS = 2;
const LATENCY_SECONDS = 5;
const SMALL = 100_000;
const MILLION = 1_000_000;

interface Run {
  rps: number;
  cpuUsPerRequest: number;
}

interface Sample {
  startupMs: number;
  rssMb?: number;
  creates?: Run[];
  reads?: Run[];
}

const gitRev = (dir: string): string => execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();

async function seeded(count: number): Promise<string> {
  const dir = makeTempDir(`ab-seed-${count}`);
  await seedHistory(join(dir, 'notifications.yaml'), count, dir);
  return dir;
}

/** Starts `checkout`'s service on a fresh copy of the seeded history (or an empty one) and runs `stage` on it. */
async function onCopy(
  checkout: string,
  memory: boolean,
  seed: string | undefined,
  stage: (service: Running, memoryFile?: string) => Promise<Partial<Sample>>,
): Promise<Sample> {
  const dir = makeTempDir('ab-run');
  try {
    if (seed !== undefined) cpSync(seed, dir, { recursive: true });
    execFileSync('sync');
    const memoryFile = memory ? join(dir, 'memory.json') : undefined;
    const main = join(checkout, 'services/notifications/dist/main.js');
    const service = await startNotifications(join(dir, 'notifications.yaml'), dir, memoryFile, {}, main);
    try {
      return { startupMs: service.startupMs, ...(await stage(service, memoryFile)) };
    } finally {
      await stopChild(service.child);
    }
  } finally {
    removeTempDir(dir);
  }
}

async function atSmall(checkout: string, seed: string): Promise<Sample> {
  return onCopy(checkout, false, seed, async (service) => {
    await new Promise((done) => setTimeout(done, 1000));
    return { rssMb: readMemory(service.child.pid)?.rssMb ?? NaN };
  });
}

async function atMillion(checkout: string, seed: string): Promise<Sample> {
  return onCopy(checkout, true, seed, async (service, memoryFile) => {
    const { port, child } = service;
    await liveMemory(child, memoryFile!);
    await measureLatency(port, LIST_PATH, LATENCY_SECONDS);
    const creates = [];
    for (let i = 0; i < 2; i++) creates.push(await throughput(createRequest(port), child.pid));
    return { creates };
  });
}

async function throughput(target: LoadRequest, pid: number | undefined): Promise<Run> {
  const run = await measureThroughput(target, CONNECTIONS, SECONDS, WARMUP_SECONDS, pid);
  if (run.non2xx > 0 || run.errors > 0) throw new Error(`${target.method} ${target.path}: ${JSON.stringify(run.statusCodes)}, ${run.errors} errors`);
  return { rps: Math.round(run.rps), cpuUsPerRequest: Number(run.serverCpuUsPerRequest?.toFixed(1)) };
}

/** The request path alone: creates into an empty history, then a read that stores nothing; RSS after both. */
async function requestPath(checkout: string): Promise<Sample> {
  return onCopy(checkout, false, undefined, async ({ port, child }) => {
    const creates = [await throughput(createRequest(port), child.pid)];
    const reads = [await throughput({ port, method: 'GET', path: '/sounds' }, child.pid)];
    return { creates, reads, rssMb: readMemory(child.pid)?.rssMb ?? NaN };
  });
}

const spread = (values: number[]) => ({ min: Math.min(...values), max: Math.max(...values) });

function summary(samples: Sample[]) {
  const creates = samples.flatMap((s) => s.creates ?? []);
  const reads = samples.flatMap((s) => s.reads ?? []);
  return {
    startupMs: median(samples.map((s) => s.startupMs)),
    ...(samples[0]?.rssMb === undefined ? {} : { rssMb: median(samples.map((s) => s.rssMb!)) }),
    ...(creates.length === 0 ? {} : { createRps: median(creates.map((c) => c.rps)), cpuUsPerRequest: median(creates.map((c) => c.cpuUsPerRequest)) }),
    ...(reads.length === 0
      ? {}
      : {
          readRps: median(reads.map((r) => r.rps)),
          readCpuUsPerRequest: median(reads.map((r) => r.cpuUsPerRequest)),
          spread: {
            createRps: spread(creates.map((c) => c.rps)),
            cpuUsPerRequest: spread(creates.map((c) => c.cpuUsPerRequest)),
            readRps: spread(reads.map((r) => r.rps)),
            readCpuUsPerRequest: spread(reads.map((r) => r.cpuUsPerRequest)),
          },
        }),
  };
}

async function main(): Promise<void> {
  installCleanupHandlers();
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { workload: { type: 'string', default: 'stored' }, out: { type: 'string', default: join(ROOT, 'bench/results/ab-stage.json') } },
  });
  const [oldDir, newDir] = positionals.slice(0, 2).map((dir) => resolve(dir));
  const rounds = Number(positionals[2] ?? 2);
  if (!oldDir || !newDir) throw new Error('usage: ab-stage.ts <old checkout> <new checkout> [rounds] [--workload stored|requests] [--out file]');
  const workload = values.workload;
  if (workload !== 'stored' && workload !== 'requests') throw new Error(`--workload is stored or requests, not ${workload}`);
  const sides = { old: oldDir, new: newDir } as const;
  const loadStart = loadavg()[0]!;
  const startedAt = new Date().toISOString();
  const seeds = workload === 'stored' ? { small: await seeded(SMALL), million: await seeded(MILLION) } : undefined;
  const samples = { old: { small: [] as Sample[], million: [] as Sample[] }, new: { small: [] as Sample[], million: [] as Sample[] } };
  const loadPerRound: number[] = [];
  try {
    for (let round = 1; round <= rounds; round++) {
      loadPerRound.push(loadavg()[0]!);
      // ABBA: whatever drifts over a run (other load, the disk) reaches both sides alike.
      const order = round % 2 ? (['old', 'new'] as const) : (['new', 'old'] as const);
      for (const side of order) {
        if (seeds) {
          samples[side].small.push(await atSmall(sides[side], seeds.small));
          samples[side].million.push(await atMillion(sides[side], seeds.million));
          console.log(`round ${round} ${side}: ${JSON.stringify({ small: samples[side].small.at(-1), million: samples[side].million.at(-1) })}`);
        } else {
          samples[side].small.push(await requestPath(sides[side]));
          console.log(`round ${round} ${side}: ${JSON.stringify(samples[side].small.at(-1))}`);
        }
      }
    }
  } finally {
    if (seeds) {
      removeTempDir(seeds.small);
      removeTempDir(seeds.million);
    }
  }
  const medianOf = (side: 'old' | 'new') =>
    seeds ? { at100k: summary(samples[side].small), atMillion: summary(samples[side].million) } : { requests: summary(samples[side].small) };
  const report = {
    startedAt,
    command: `tsx bench/ab-stage.ts <old> <new> ${rounds} --workload ${workload}`,
    machine: { ...machineOf(loadStart), loadAveragePerRound: loadPerRound },
    commits: { old: gitRev(oldDir), new: gitRev(newDir) },
    settings: { workload, connections: CONNECTIONS, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, latencySeconds: LATENCY_SECONDS, rounds },
    median: { old: medianOf('old'), new: medianOf('new') },
    samples: seeds ? samples : { old: samples.old.small, new: samples.new.small },
  };
  writeFileSync(resolve(values.out), `${JSON.stringify(report, null, 2)}\n`);
  console.log(JSON.stringify(report.median, null, 2));
}

runBench(main);
