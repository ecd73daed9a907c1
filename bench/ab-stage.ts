// The stages `pnpm bench` flagged between two commits, again with one harness for both: this checkout's bench code
// seeds each history once and starts the built service of either checkout on a copy of it, the two alternating in
// every round. What `side-by-side.sh` cannot tell apart (each commit runs its own bench code there) is the service.
// Measures startup and RSS with 100,000 stored, and with 1,000,000 stored the create runs after the same steps as
// the bench (startup, two full collections, a list latency run), their server CPU per request included.
// Usage: npx -y pnpm@10 exec tsx bench/ab-stage.ts <old checkout> <new checkout> [rounds, default 2]
// (each checkout built: `pnpm bench` or `tsc -b services/notifications/tsconfig.build.json`). Writes bench/results/ab-stage.json.
import { execFileSync } from 'node:child_process';
import { cpSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { machineOf, median, runBench } from './ab-report.js';
import { measureLatency, measureThroughput } from './load.js';
import { installCleanupHandlers, makeTempDir, readMemory, removeTempDir, stopChild } from './processes.js';
import { createRequest, LIST_PATH, liveMemory, ROOT, seedHistory, startNotifications, type Running } from './services.js';

const CONNECTIONS = 32;
const SECONDS = 10;
const WARMUP_SECONDS = 2;
const LATENCY_SECONDS = 5;
const SMALL = 100_000;
const MILLION = 1_000_000;

interface Sample {
  startupMs: number;
  rssMb?: number;
  creates?: { rps: number; cpuUsPerRequest: number }[];
}

const gitRev = (dir: string): string => execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();

async function seeded(count: number): Promise<string> {
  const dir = makeTempDir(`ab-seed-${count}`);
  await seedHistory(join(dir, 'notifications.yaml'), count, dir);
  return dir;
}

/** Starts `checkout`'s service on a fresh copy of the seeded history and runs `stage` on it. */
async function onCopy(
  checkout: string,
  seed: string,
  memory: boolean,
  stage: (service: Running, memoryFile?: string) => Promise<Partial<Sample>>,
): Promise<Sample> {
  const dir = makeTempDir('ab-run');
  try {
    cpSync(seed, dir, { recursive: true });
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
  return onCopy(checkout, seed, false, async (service) => {
    await new Promise((done) => setTimeout(done, 1000));
    return { rssMb: readMemory(service.child.pid)?.rssMb ?? NaN };
  });
}

async function atMillion(checkout: string, seed: string): Promise<Sample> {
  return onCopy(checkout, seed, true, async (service, memoryFile) => {
    const { port, child } = service;
    await liveMemory(child, memoryFile!);
    await measureLatency(port, LIST_PATH, LATENCY_SECONDS);
    const creates = [];
    for (let i = 0; i < 2; i++) {
      const run = await measureThroughput(createRequest(port), CONNECTIONS, SECONDS, WARMUP_SECONDS, child.pid);
      creates.push({ rps: Math.round(run.rps), cpuUsPerRequest: Number(run.serverCpuUsPerRequest?.toFixed(1)) });
    }
    return { creates };
  });
}

function summary(samples: Sample[]) {
  const creates = samples.flatMap((s) => s.creates ?? []);
  return {
    startupMs: median(samples.map((s) => s.startupMs)),
    ...(samples[0]?.rssMb === undefined ? {} : { rssMb: median(samples.map((s) => s.rssMb!)) }),
    ...(creates.length === 0 ? {} : { createRps: median(creates.map((c) => c.rps)), cpuUsPerRequest: median(creates.map((c) => c.cpuUsPerRequest)) }),
  };
}

async function main(): Promise<void> {
  installCleanupHandlers();
  const [oldDir, newDir] = process.argv.slice(2, 4).map((dir) => resolve(dir));
  const rounds = Number(process.argv[4] ?? 2);
  if (!oldDir || !newDir) throw new Error('usage: ab-stage.ts <old checkout> <new checkout> [rounds]');
  const sides = { old: oldDir, new: newDir } as const;
  const loadStart = loadavg()[0]!;
  const startedAt = new Date().toISOString();
  const seeds = { small: await seeded(SMALL), million: await seeded(MILLION) };
  const samples = { old: { small: [] as Sample[], million: [] as Sample[] }, new: { small: [] as Sample[], million: [] as Sample[] } };
  try {
    for (let round = 1; round <= rounds; round++) {
      const order = round % 2 ? (['old', 'new'] as const) : (['new', 'old'] as const);
      for (const side of order) {
        samples[side].small.push(await atSmall(sides[side], seeds.small));
        samples[side].million.push(await atMillion(sides[side], seeds.million));
        console.log(`round ${round} ${side}: ${JSON.stringify({ small: samples[side].small.at(-1), million: samples[side].million.at(-1) })}`);
      }
    }
  } finally {
    removeTempDir(seeds.small);
    removeTempDir(seeds.million);
  }
  const report = {
    startedAt,
    command: `tsx bench/ab-stage.ts <old> <new> ${rounds}`,
    machine: machineOf(loadStart),
    commits: { old: gitRev(oldDir), new: gitRev(newDir) },
    settings: { connections: CONNECTIONS, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, latencySeconds: LATENCY_SECONDS, rounds },
    median: {
      old: { at100k: summary(samples.old.small), atMillion: summary(samples.old.million) },
      new: { at100k: summary(samples.new.small), atMillion: summary(samples.new.million) },
    },
    samples,
  };
  writeFileSync(join(ROOT, 'bench/results/ab-stage.json'), `${JSON.stringify(report, null, 2)}\n`);
  console.log(JSON.stringify(report.median, null, 2));
}

runBench(main);
