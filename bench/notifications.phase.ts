import { join } from 'node:path';
import { measureLatency, measureThroughput, type LoadRequest, type LoadResult } from './load.js';
import { httpGet, makeTempDir, readMemory, removeTempDir, stopChild, type Child } from './processes.js';
import type { BenchResults, Compared, CreateStage, RunSettings } from './results.js';
import { seedHistory, startBare, startNotifications, type Running } from './services.js';

/** What a phase needs from the run: settings, where problems go, how to report progress. */
export interface PhaseContext {
  settings: RunSettings;
  problems: string[];
  /** A measurement that could not be made (a child did not start, crashed, answered wrongly). */
  fail: (what: string, error: unknown) => void;
  log: (line: string) => void;
}

const STORED = [0, 10_000, 100_000];
const LIST_PATH = '/notifications/recipient-0';
const CREATE_BODY = JSON.stringify({
  recipient: 'recipient-0',
  title: 'Backup finished',
  message: 'Nightly backup of /srv on server-12 completed in 4 min 12 s (2.1 GB). Next run tonight at 02:00.',
  priority: 0,
});

/** One line per run, and a problem for every non-2xx answer or connection error. */
export function describeRun(ctx: PhaseContext, label: string, run: LoadResult): void {
  const cpu = run.serverCpuUsPerRequest === undefined ? '' : `  server CPU ${run.serverCpuUsPerRequest.toFixed(0)} µs/req`;
  ctx.log(`${label.padEnd(44)} ${run.rps.toFixed(0).padStart(6)} req/s  p50 ${run.p50Ms} ms  p99 ${run.p99Ms} ms${cpu}`);
  if (run.non2xx > 0) ctx.problems.push(`${label}: ${run.non2xx} of ${run.requests} answers were not 2xx (status counts ${JSON.stringify(run.statusCodes)})`);
  if (run.errors > 0) ctx.problems.push(`${label}: ${run.errors} connection errors (${run.timeouts} timeouts)`);
}

export function assertAlive(child: Child, label: string): void {
  if (child.exited !== undefined) throw new Error(`${child.name} exited during ${label} (code ${child.exited.code}, signal ${child.exited.signal})`);
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

/** Ratio of a service run to the mean of the ceiling runs made in this invocation. */
export function compare(service: LoadResult, ceilings: LoadResult[]): Compared {
  const ceilingRps = mean(ceilings.map((c) => c.rps));
  return { service, ceilingRps, ratio: service.rps / ceilingRps };
}

async function createOnce(port: number): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/notifications`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: CREATE_BODY });
  const body = await res.text();
  if (res.status !== 201) throw new Error(`POST /notifications answered ${res.status}: ${body.slice(0, 300)}`);
  return body;
}

/** Create throughput at 0, 10,000 and 100,000 stored; list latency, startup and memory at 100,000. */
export async function runNotificationsPhase(ctx: PhaseContext, results: BenchResults): Promise<void> {
  const { connections, seconds, warmupSeconds } = ctx.settings;
  const createRequest = (port: number): LoadRequest => ({ port, method: 'POST', path: '/notifications', body: CREATE_BODY });
  let bare: Running | undefined;
  try {
    for (const stored of STORED) {
      const dir = makeTempDir(`notifications-${stored}`);
      let service: Running | undefined;
      try {
        const seedMs = stored > 0 ? await seedHistory(join(dir, 'notifications.yaml'), stored, dir) : 0;
        service = await startNotifications(join(dir, 'notifications.yaml'), dir);
        ctx.log(`notifications with ${stored.toLocaleString('en-US')} stored: seeded in ${seedMs} ms, started in ${service.startupMs.toFixed(0)} ms`);
        if (bare === undefined) {
          bare = await startBare('bare create', 'post', '/notifications', 201, await createOnce(service.port));
          const before = await measureThroughput(createRequest(bare.port), connections, seconds, warmupSeconds, bare.child.pid);
          results.ceilings.create.push(before);
          describeRun(ctx, 'bare Express 5, create response (before)', before);
        }
        if (stored === 100_000) await measureAt100k(ctx, results, service);
        const run = await measureThroughput(createRequest(service.port), connections, seconds, warmupSeconds, service.child.pid);
        assertAlive(service.child, `the create run with ${stored} stored`);
        describeRun(ctx, `notifications create, ${stored.toLocaleString('en-US')} stored`, run);
        const stage: CreateStage = { stored, seedMs, startupMs: service.startupMs, create: compare(run, results.ceilings.create) };
        results.notifications.stages.push(stage);
        const memory = stored === 100_000 ? readMemory(service.child.pid) : undefined;
        const at100k = results.notifications.memoryAt100k;
        if (memory && at100k) Object.assign(at100k, { afterLoadMb: memory.rssMb, peakAfterLoadMb: memory.peakRssMb });
      } catch (error) {
        ctx.fail(`notifications with ${stored} stored`, error);
      } finally {
        if (service) await stopChild(service.child);
        removeTempDir(dir);
      }
    }
    if (bare !== undefined) {
      const after = await measureThroughput(createRequest(bare.port), connections, seconds, warmupSeconds, bare.child.pid);
      results.ceilings.create.push(after);
      describeRun(ctx, 'bare Express 5, create response (after)', after);
      // Every stage's ratio against the mean of both ceiling runs.
      for (const stage of results.notifications.stages) stage.create = compare(stage.create.service, results.ceilings.create);
    }
  } finally {
    if (bare) await stopChild(bare.child);
  }
}

/** Startup, memory and the list, on exactly 100,000 records (before any create adds to them). */
async function measureAt100k(ctx: PhaseContext, results: BenchResults, service: Running): Promise<void> {
  const { connections, warmupSeconds, latencySeconds } = ctx.settings;
  results.notifications.startupAt100kMs = service.startupMs;
  const afterStart = readMemory(service.child.pid);
  if (afterStart) {
    results.notifications.memoryAt100k = { afterStartMb: afterStart.rssMb, startupPeakMb: afterStart.peakRssMb };
    ctx.log(`memory at 100,000 once started: ${afterStart.rssMb.toFixed(0)} MB (peak while loading ${afterStart.peakRssMb.toFixed(0)} MB)`);
  }
  const sample = await httpGet(service.port, LIST_PATH);
  if (sample.status !== 200) throw new Error(`GET ${LIST_PATH} answered ${sample.status}: ${sample.body.slice(0, 300)}`);
  const bare = await startBare('bare list', 'get', LIST_PATH, 200, sample.body);
  try {
    results.ceilings.list = await measureLatency(bare.port, LIST_PATH, latencySeconds);
  } finally {
    await stopChild(bare.child);
  }
  const unloaded = await measureLatency(service.port, LIST_PATH, latencySeconds);
  ctx.log(`list at 100,000, one at a time: bare p50 ${results.ceilings.list.p50Ms.toFixed(2)} ms, notifications p50 ${unloaded.p50Ms.toFixed(2)} ms p99 ${unloaded.p99Ms.toFixed(2)} ms`);
  const loaded = await measureThroughput({ port: service.port, method: 'GET', path: LIST_PATH }, connections, latencySeconds, warmupSeconds, service.child.pid);
  describeRun(ctx, 'notifications list at 100,000', loaded);
  assertAlive(service.child, 'the list runs');
  results.notifications.listAt100k = { unloaded, loaded, bytes: Buffer.byteLength(sample.body) };
}
