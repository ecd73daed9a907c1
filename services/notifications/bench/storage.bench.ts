// Storage benchmark (not a test): npx tsx --conditions=source bench/storage.bench.ts [seconds-per-run]
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { YamlNotificationRepository } from '../src/adapters/storage/yaml-notification.repository.js';
import { benchRecord } from './storage-bench-data.js';

const WRITERS = 32;
const SECONDS = Number(process.argv[2] ?? 5);
const OPEN_CHILD = fileURLToPath(new URL('./storage-open.child.ts', import.meta.url));

async function seed(path: string, count: number): Promise<void> {
  const repo = new YamlNotificationRepository(path);
  await repo.open();
  for (let done = 0; done < count;) {
    const batch = Math.min(2000, count - done);
    await Promise.all(Array.from({ length: batch }, (_, i) => repo.insert(benchRecord(done + i))));
    done += batch;
  }
  await repo.close(); // folds everything into the YAML snapshot
}

async function measureInserts(path: string, stored: number): Promise<{ perSecond: number; maxStallMs: number; cpuUs: number; folds: number }> {
  let folds = 0;
  const repo = new YamlNotificationRepository(path, { log: (level) => (folds += level === 'info' ? 1 : 0) });
  await repo.open();
  const stall = monitorEventLoopDelay({ resolution: 5 });
  stall.enable();
  const deadline = performance.now() + SECONDS * 1000;
  let inserted = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      while (performance.now() < deadline) {
        await repo.insert(benchRecord(stored + inserted++, new Date()));
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  stall.disable();
  const foldsDuringRun = folds;
  await repo.close();
  return {
    perSecond: Math.round(inserted / elapsed),
    maxStallMs: Math.round(stall.max / 1e6),
    cpuUs: Math.round((cpu.user + cpu.system) / inserted),
    folds: foldsDuringRun,
  };
}

function measureOpen(path: string): Record<string, number> {
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--conditions=source', OPEN_CHILD, path], { encoding: 'utf8' });
  return JSON.parse(out) as Record<string, number>;
}

const round = (value: number | undefined): string => (value ?? NaN).toFixed(value !== undefined && value < 10 ? 3 : 0);

for (const stored of [0, 10_000, 100_000]) {
  const dir = await mkdtemp(join(tmpdir(), 'notifications-bench-'));
  const path = join(dir, 'notifications.yaml');
  try {
    await seed(path, stored);
    const open = measureOpen(path);
    const inserts = await measureInserts(path, stored);
    console.log(
      `stored=${stored}: inserts/s (32 writers, ${SECONDS}s)=${inserts.perSecond}, CPU per insert=${inserts.cpuUs} µs, background folds=${inserts.folds}, max event-loop stall=${inserts.maxStallMs} ms; ` +
        `open=${round(open.openMs)} ms (CPU ${round(open.openCpuMs)} ms), rss=${round(open.rssMb)} MB, list first page p50=${round(open.listP50Ms)} ms p99=${round(open.listP99Ms)} ms`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
