// `pnpm bench`: both services beside bare Express 5 ceilings, in one run; writes docs/benchmarks.md,
// bench/results/benchmarks.json and the plot.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { renderDashboardSection } from './dashboard-section.js';
import { runDeviceControlPhase } from './device-control.phase.js';
import { probeDurableAppend } from './disk-probe.js';
import { runNotificationsPhase } from './notifications.phase.js';
import { runPostgresPhase } from './postgres.phase.js';
import type { PhaseContext } from './phase.js';
import { cleanUpNow, installCleanupHandlers } from './processes.js';
import { runRestartPhase } from './restart.phase.js';
import { renderMarkdown } from './report-markdown.js';
import type { BenchResults, Compared, RunSettings } from './results.js';
import { renderResultsSection } from './results-section.js';
import { buildServices, RESULTS, ROOT } from './services.js';
import { evaluateTargets } from './targets.js';
import { renderThroughputSvg } from './throughput-svg.js';

// The targets are stated for 32 connections; only the durations may be shortened (e.g. while developing).
const OVERRIDES = ['BENCH_SECONDS', 'BENCH_WARMUP_SECONDS', 'BENCH_LATENCY_SECONDS', 'BENCH_SKIP_BUILD', 'BENCH_ONLY'] as const;
const settings: RunSettings = {
  connections: 32,
  seconds: Number(process.env.BENCH_SECONDS ?? 10),
  warmupSeconds: Number(process.env.BENCH_WARMUP_SECONDS ?? 2),
  latencySeconds: Number(process.env.BENCH_LATENCY_SECONDS ?? 5),
};
const WATCHDOG_MS = 25 * 60 * 1000; // the worst-case restart alone makes a million creates

function codeVersion(): BenchResults['code'] {
  try {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
    return { commit: git('rev-parse', '--short', 'HEAD'), uncommittedChanges: git('status', '--porcelain', '--', 'services', 'packages') !== '' };
  } catch {
    return undefined; // not a git checkout
  }
}

function commandLine(): string {
  const env = OVERRIDES.filter((name) => process.env[name] !== undefined).map((name) => `${name}=${process.env[name]}`);
  return [...env, process.env.npm_lifecycle_event === 'bench' ? 'pnpm bench' : 'tsx bench/run.ts'].join(' ');
}

function describeRatio(compared: Compared): string {
  const cpu = compared.cpuRatio === undefined ? '' : ` (by server CPU per request: ${(compared.cpuRatio * 100).toFixed(1)}%)`;
  return `${(compared.ratio * 100).toFixed(1)}% of req/s${cpu}`;
}

async function main(): Promise<number> {
  installCleanupHandlers();
  setTimeout(() => {
    console.error(`bench: still running after ${WATCHDOG_MS / 60_000} min, giving up`);
    cleanUpNow();
    process.exit(2);
  }, WATCHDOG_MS).unref();
  const started = performance.now();
  const results: BenchResults = {
    command: commandLine(),
    code: codeVersion(),
    startedAt: new Date().toISOString(),
    durationSeconds: 0,
    machine: {
      cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
      cores: cpus().length,
      memoryGb: totalmem() / 1024 ** 3,
      node: process.version,
      platform: `${process.platform} ${process.arch}`,
      loadAverageStart: loadavg()[0]!,
      loadAverageEnd: NaN,
    },
    settings,
    ceilings: { create: [], devices: [] },
    notifications: { stages: [] },
    deviceControl: { toggle: { status: 'not measured', reason: 'not run' } },
    problems: [],
  };
  let failures = 0;
  const ctx: PhaseContext = {
    settings,
    problems: results.problems,
    fail: (what, error) => {
      failures++;
      const message = `${what} could not be measured: ${(error as Error).message}`;
      results.problems.push(message);
      console.error(message);
    },
    log: (line) => console.log(line),
  };
  if (process.env.BENCH_SKIP_BUILD === undefined) {
    console.log('building both services (tsc -b) ...');
    await buildServices();
  }
  results.machine.durableAppendStart = await probeDurableAppend();
  // BENCH_ONLY=postgres runs the PostgreSQL phase alone (while developing it), BENCH_ONLY=restart the worst-case restart
  // alone; the report then says the rest was not measured.
  const only = process.env.BENCH_ONLY;
  if (only === undefined || only === 'notifications') await runNotificationsPhase(ctx, results);
  if (only === undefined || only === 'notifications' || only === 'restart') await runRestartPhase(ctx, results);
  if (only === undefined || only === 'postgres') await runPostgresPhase(ctx, results);
  if (only === undefined || only === 'device-control') await runDeviceControlPhase(ctx, results);
  results.machine.loadAverageEnd = loadavg()[0]!;
  results.machine.durableAppendEnd = await probeDurableAppend();
  results.durationSeconds = (performance.now() - started) / 1000;

  const targets = evaluateTargets(results);
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(join(RESULTS, 'benchmarks.json'), `${JSON.stringify({ ...results, targets }, null, 2)}\n`);
  writeFileSync(join(ROOT, 'docs/benchmarks.md'), renderMarkdown(results, targets) + renderDashboardSection(RESULTS) + renderResultsSection());
  const points = results.notifications.stages.map((s) => ({ stored: s.stored, rps: s.create.serviceRps }));
  const ceilingRuns = results.ceilings.create.map((c) => c.rps);
  const ceiling = ceilingRuns.reduce((a, b) => a + b, 0) / Math.max(1, ceilingRuns.length);
  writeFileSync(join(RESULTS, 'create-throughput.svg'), renderThroughputSvg(points, ceiling, 'notifications: POST /notifications, 32 connections'));

  console.log('\nratios to the bare Express 5 ceiling (same JSON, same connections, this run):');
  for (const stage of results.notifications.stages) {
    console.log(`  create with ${stage.stored.toLocaleString('en-US').padStart(7)} stored: ${describeRatio(stage.create)}`);
  }
  if (results.deviceControl.devices) console.log(`  GET /devices (50 devices):       ${describeRatio(results.deviceControl.devices)}`);
  console.log('\ntargets:');
  for (const t of targets) {
    const value = t.measured === undefined ? 'not measured' : `${t.measured.toFixed(t.unit === 'ms' && t.measured < 10 ? 2 : 1)} ${t.unit}`;
    console.log(`  [${t.status.padEnd(12)}] ${t.target}: ${value} (${t.comparison} ${t.limit} ${t.unit})`);
  }
  if (results.problems.length > 0) console.log(`\nproblems:\n${results.problems.map((p) => `  - ${p}`).join('\n')}`);
  console.log(`\nwrote docs/benchmarks.md, bench/results/benchmarks.json, bench/results/create-throughput.svg in ${results.durationSeconds.toFixed(0)} s`);
  // A stage that could not run is a failed bench; a missed target is a result.
  return failures > 0 ? 1 : 0;
}

try {
  process.exitCode = await main();
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  cleanUpNow();
}
