import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { measureLatency, measureThroughput, type LoadResult } from './load.js';
import { assertAlive, compare, describeRun, type PhaseContext } from './phase.js';
import { httpGet, makeTempDir, readMemory, removeTempDir, stopChild } from './processes.js';
import type { BenchResults, CreateStage, Fold, MillionStage } from './results.js';
import { CREATE_BODY, createRequest, LIST_PATH, liveMemory, resetPeakRss, seedHistory, startBare, startNotifications, type Running } from './services.js';

const STORED = [0, 10_000, 100_000, 1_000_000];
const MILLION = 1_000_000;

const FOLDED = /^Folded (\d+) notifications .* in (\d+) ms$/;

/** The folds a notification service logged so far (its storage logs one info line per fold). */
function foldsLogged(logFile: string): Fold[] {
  let text = '';
  try {
    text = readFileSync(logFile, 'utf8');
  } catch {
    return [];
  }
  const folds: Fold[] = [];
  for (const line of text.split('\n')) {
    if (!line.includes('Folded ')) continue;
    try {
      const match = FOLDED.exec((JSON.parse(line) as { msg?: string }).msg ?? '');
      if (match) folds.push({ records: Number(match[1]), ms: Number(match[2]) });
    } catch {
      // not a log line of ours
    }
  }
  return folds;
}

async function createOnce(port: number): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/notifications`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: CREATE_BODY });
  const body = await res.text();
  if (res.status !== 201) throw new Error(`POST /notifications answered ${res.status}: ${body.slice(0, 300)}`);
  return body;
}

/**
 * Create throughput at 0, 10,000 and 100,000 stored, each between two runs of the ceiling (bare, 0, bare, 10,000,
 * bare, 100,000, bare); list latency, startup and memory at 100,000.
 */
export async function runNotificationsPhase(ctx: PhaseContext, results: BenchResults): Promise<void> {
  const { connections, seconds, warmupSeconds } = ctx.settings;
  let bare: Running | undefined;
  const measureCeiling = async (): Promise<LoadResult> => {
    const run = await measureThroughput(createRequest(bare!.port), connections, seconds, warmupSeconds, bare!.child.pid);
    results.ceilings.create.push(run);
    describeRun(ctx, 'bare Express 5, create response', run);
    return run;
  };
  try {
    for (const stored of STORED) {
      const dir = makeTempDir(`notifications-${stored}`);
      let service: Running | undefined;
      let before: LoadResult | undefined;
      let run: LoadResult | undefined;
      let seedMs = 0;
      let folds: CreateStage['folds'];
      try {
        seedMs = stored > 0 ? await seedHistory(join(dir, 'notifications.yaml'), stored, dir) : 0;
        // The seed's files reach the disk before the stage measures, not while it does.
        if (stored > 0) execFileSync('sync');
        const memoryFile = stored === MILLION ? join(dir, 'memory.json') : undefined;
        service = await startNotifications(join(dir, 'notifications.yaml'), dir, memoryFile);
        ctx.log(`notifications with ${stored.toLocaleString('en-US')} stored: seeded in ${seedMs} ms, started in ${service.startupMs.toFixed(0)} ms`);
        bare ??= await startBare('bare create', 'post', '/notifications', 201, await createOnce(service.port));
        before = results.ceilings.create.at(-1) ?? (await measureCeiling());
        if (stored === 100_000) await measureAt100k(ctx, results, service);
        if (stored === MILLION) results.notifications.atMillion = await measureAtMillion(ctx, service, memoryFile!);
        run = await measureThroughput(createRequest(service.port), connections, seconds, warmupSeconds, service.child.pid);
        assertAlive(service.child, `the create run with ${stored} stored`);
        describeRun(ctx, `notifications create, ${stored.toLocaleString('en-US')} stored`, run);
        const million = stored === MILLION ? results.notifications.atMillion : undefined;
        const peak = readMemory(service.child.pid)?.peakRssMb;
        if (million?.peakDuringRunsMb !== undefined && peak !== undefined) million.peakDuringRunsMb = peak;
        const memory = stored === 100_000 ? readMemory(service.child.pid) : undefined;
        const at100k = results.notifications.memoryAt100k;
        if (memory && at100k) Object.assign(at100k, { afterLoadMb: memory.rssMb, peakAfterLoadMb: memory.peakRssMb });
      } catch (error) {
        ctx.fail(`notifications with ${stored} stored`, error);
      } finally {
        if (service) {
          const whileRunning = foldsLogged(service.child.logFile);
          const million = stored === MILLION ? results.notifications.atMillion : undefined;
          const stopping = performance.now();
          // At a million the stop itself is measured: given time, not killed after the usual 5 s.
          await stopChild(service.child, million ? 60_000 : undefined);
          if (million) {
            million.stopMs = performance.now() - stopping;
            million.stopCode = service.child.exited?.code ?? null;
            ctx.log(`notifications with 1,000,000 stored stopped in ${million.stopMs.toFixed(0)} ms (exit code ${million.stopCode})`);
          }
          folds = { whileRunning, onStop: foldsLogged(service.child.logFile).slice(whileRunning.length).at(-1) };
        }
        removeTempDir(dir);
      }
      if (before && run && service) {
        const after = await measureCeiling();
        const stage: CreateStage = { stored, seedMs, startupMs: service.startupMs, create: compare([run], [before, after]) };
        if (folds) stage.folds = folds;
        results.notifications.stages.push(stage);
      }
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
  ctx.log(
    `list at 100,000, one at a time: bare p50 ${results.ceilings.list.p50Ms.toFixed(2)} ms, notifications p50 ${unloaded.p50Ms.toFixed(2)} ms p99 ${unloaded.p99Ms.toFixed(2)} ms`,
  );
  const loaded = await measureThroughput({ port: service.port, method: 'GET', path: LIST_PATH }, connections, latencySeconds, warmupSeconds, service.child.pid);
  describeRun(ctx, 'notifications list at 100,000', loaded);
  assertAlive(service.child, 'the list runs');
  results.notifications.listAt100k = { unloaded, loaded, bytes: Buffer.byteLength(sample.body) };
}

/** Startup, memory (resident and live heap after GC) and the list's p50 at 1,000,000 (issue 14), before any create. */
async function measureAtMillion(ctx: PhaseContext, service: Running, memoryFile: string): Promise<MillionStage> {
  const afterStart = readMemory(service.child.pid);
  const stage: MillionStage = { startupMs: service.startupMs, afterStartMb: afterStart?.rssMb ?? NaN, startupPeakMb: afterStart?.peakRssMb ?? NaN };
  try {
    stage.liveHeapMb = await liveMemory(service.child, memoryFile);
  } catch (error) {
    ctx.fail('live heap at 1,000,000', error);
  }
  // From here the peak counts only the list and create runs.
  if (resetPeakRss(service.child.pid)) stage.peakDuringRunsMb = readMemory(service.child.pid)?.rssMb ?? NaN;
  stage.listP50Ms = (await measureLatency(service.port, LIST_PATH, ctx.settings.latencySeconds)).p50Ms;
  ctx.log(
    `notifications at 1,000,000: started in ${service.startupMs.toFixed(0)} ms, RSS ${stage.afterStartMb.toFixed(0)} MB (peak ${stage.startupPeakMb.toFixed(0)} MB), ` +
      `live heap + external ${stage.liveHeapMb?.toFixed(0) ?? '?'} MB, list p50 ${stage.listP50Ms.toFixed(2)} ms`,
  );
  return stage;
}
