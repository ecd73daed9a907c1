// The worst-case restart on its own: a million creates over HTTP, SIGTERM, then starts on copies of what the stop
// left, this checkout's build and (optionally) another checkout's, alternating. Repeated `runs` times.
// Usage: npx -y pnpm@10 exec tsx bench/restart-bench.ts [creates, default 1000000] [runs, default 1] [old checkout]
// (the old checkout built: `tsc -b services/notifications/tsconfig.build.json` in it). Writes bench/results/restart-million.json,
// adding to the runs already there when they measured the same commits and count.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { machineOf, runBench } from './ab-report.js';
import { installCleanupHandlers, removeTempDir } from './processes.js';
import { createThenStop, startOnCopy, type StartSample } from './restart-million.js';
import { buildServices, ROOT } from './services.js';

const STARTS_PER_SIDE = 2;
const gitRev = (dir: string): string => {
  try {
    return execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: 'pipe' }).trim();
  } catch {
    return dir; // an exported tree (git archive), named by its directory
  }
};
const load = (): number => Number(loadavg()[0]!.toFixed(2));

async function main(): Promise<void> {
  installCleanupHandlers();
  const creates = Number(process.argv[2] ?? 1_000_000);
  const runs = Number(process.argv[3] ?? 1);
  const oldDir = process.argv[4] === undefined ? undefined : resolve(process.argv[4]);
  await buildServices();
  const loadStart = loadavg()[0]!;
  const startedAt = new Date().toISOString();
  const sides: Array<{ name: 'old' | 'new'; main?: string }> = [{ name: 'new' }];
  if (oldDir) sides.push({ name: 'old', main: join(oldDir, 'services/notifications/dist/main.js') });
  const report = {
    startedAt,
    command: `tsx bench/restart-bench.ts ${creates} ${runs}${oldDir ? ' <old checkout>' : ''}`,
    machine: machineOf(loadStart),
    commits: { new: gitRev(ROOT), ...(oldDir ? { old: gitRev(oldDir) } : {}) },
    runs: [] as unknown[],
  };
  const file = join(ROOT, 'bench/results/restart-million.json');
  const earlier = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as typeof report) : undefined;
  if (earlier && JSON.stringify(earlier.commits) === JSON.stringify(report.commits) && earlier.command.split(' ')[2] === String(creates)) {
    report.runs.push(...earlier.runs);
  }
  for (let run = 1; run <= runs; run++) {
    const loadBeforeCreates = load();
    const stopped = await createThenStop(creates);
    const { dir, ...stop } = stopped;
    console.log(`run ${run}: ${JSON.stringify({ loadBeforeCreates, loadAtStop: load(), ...stop })}`);
    const starts: Array<StartSample & { side: string; loadAverage: number }> = [];
    try {
      for (let i = 0; i < STARTS_PER_SIDE; i++) {
        for (const side of i % 2 ? [...sides].reverse() : sides) {
          const loadAverage = load();
          const sample = await startOnCopy(stopped, side.main);
          starts.push({ side: side.name, loadAverage, ...sample });
          console.log(`run ${run} start (${side.name}): ${JSON.stringify(starts.at(-1))}`);
        }
      }
    } finally {
      removeTempDir(dir);
    }
    report.runs.push({ loadBeforeCreates, stop, starts });
    report.machine.loadAverageEnd = loadavg()[0]!;
    mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
    writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  }
}

runBench(main);
