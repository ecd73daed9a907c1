// The worst-case restart of the notification history (issue 33): a million creates over HTTP into an empty history,
// SIGTERM, then starts on what the stop left. Measures the stop, each start (until /health answers and then the list
// answers), RSS once started, and what the stop left on disk (snapshot and journal bytes). Each start runs on its own
// copy of the stopped history, so several builds can start on exactly the same files.
import { execFileSync } from 'node:child_process';
import { closeSync, cpSync, fstatSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { httpGet, makeTempDir, readCpuMs, readMemory, removeTempDir, stopChild } from './processes.js';
import type { RestartStage } from './results.js';
import { CREATE_BODY, LIST_PATH, startNotifications } from './services.js';

/** The million creates and the stop after them (the stop's half of a RestartStage). */
export type StoppedHistory = Pick<
  RestartStage,
  'creates' | 'non2xx' | 'createSeconds' | 'stopMs' | 'stopCode' | 'foldedOnStop' | 'leftSnapshotMb' | 'leftJournalMb'
> & {
  /** A directory holding the stopped history (notifications.yaml and what is beside it); remove it when done. */
  dir: string;
};

/** One start on a copy of a stopped history (ms, MiB). */
export interface StartSample {
  /** Spawn to /health answering 200, and to the first page of a recipient answering 200 after that. */
  startupMs: number;
  listedMs: number;
  /** CPU time the service used until the list answered (less sensitive than the wall time to other load). */
  startCpuMs: number;
  /** VmRSS once the list answered, and VmHWM then (the peak while loading). */
  afterStartMb: number;
  startupPeakMb: number;
}

const MB = 1e6;

function leftOnDisk(dir: string): { leftSnapshotMb: number; leftJournalMb: number } {
  let snapshot = 0;
  let journal = 0;
  for (const name of readdirSync(dir)) {
    if (name === 'notifications.yaml') snapshot += statSync(join(dir, name)).size;
    else if (/^notifications\.yaml\.\d+\.journal$/.test(name)) journal += statSync(join(dir, name)).size;
  }
  return { leftSnapshotMb: snapshot / MB, leftJournalMb: journal / MB };
}

/** `creates` POSTs over HTTP with 32 connections into an empty history, then SIGTERM; `main`: another build's service. */
export async function createThenStop(creates: number, main?: string): Promise<StoppedHistory> {
  const dir = makeTempDir('restart-million');
  const path = join(dir, 'notifications.yaml');
  const service = await startNotifications(path, dir, undefined, {}, main);
  let stopped = false;
  try {
    const run = await autocannon({
      url: `http://127.0.0.1:${service.port}/notifications`,
      method: 'POST',
      connections: 32,
      amount: creates,
      headers: { 'content-type': 'application/json' },
      body: CREATE_BODY,
    });
    // Only the log's size before the stop: reading a log of a million requests would delay the SIGTERM by seconds.
    const logBytesBefore = statSync(service.child.logFile).size;
    const started = performance.now();
    await stopChild(service.child, 60_000);
    stopped = true;
    const stopMs = performance.now() - started;
    return {
      dir,
      creates: run.requests.total,
      non2xx: run.non2xx,
      createSeconds: run.duration,
      stopMs,
      stopCode: service.child.exited?.code ?? null,
      foldedOnStop: logLinesAfter(service.child.logFile, logBytesBefore).some((line) => line.includes('Folded ')),
      ...leftOnDisk(dir),
    };
  } catch (error) {
    removeTempDir(dir);
    throw error;
  } finally {
    if (!stopped) await stopChild(service.child);
  }
}

function logLinesAfter(file: string, offset: number): string[] {
  const handle = openSync(file, 'r');
  try {
    const length = fstatSync(handle).size - offset;
    const tail = Buffer.alloc(Math.max(0, length));
    readSync(handle, tail, 0, tail.length, offset);
    return tail.toString('utf8').split('\n');
  } finally {
    closeSync(handle);
  }
}

/** Starts a service (`main`: another build's) on a fresh copy of the stopped history; measures until the list answers. */
export async function startOnCopy(stopped: StoppedHistory, main?: string): Promise<StartSample> {
  const dir = makeTempDir('restart-copy');
  try {
    for (const name of readdirSync(stopped.dir)) {
      if (name.startsWith('notifications.yaml') && !name.endsWith('.lock')) cpSync(join(stopped.dir, name), join(dir, name));
    }
    // The copy reaches the disk before the start is timed, not while it is.
    execFileSync('sync');
    const service = await startNotifications(join(dir, 'notifications.yaml'), dir, undefined, {}, main);
    try {
      const list = await httpGet(service.port, LIST_PATH, 30_000);
      if (list.status !== 200) throw new Error(`GET ${LIST_PATH} answered ${list.status} after the restart`);
      const listedMs = performance.now() - service.child.spawnedAt;
      const memory = readMemory(service.child.pid);
      return {
        startupMs: service.startupMs,
        listedMs,
        startCpuMs: readCpuMs(service.child.pid) ?? NaN,
        afterStartMb: memory?.rssMb ?? NaN,
        startupPeakMb: memory?.peakRssMb ?? NaN,
      };
    } finally {
      await stopChild(service.child, 60_000);
    }
  } finally {
    removeTempDir(dir);
  }
}

/** `pnpm bench`'s row: a million creates over HTTP, SIGTERM, one start on what the stop left (issue 33). */
export async function measureWorstCaseRestart(creates = 1_000_000): Promise<StoppedHistoryRow> {
  const stopped = await createThenStop(creates);
  const { dir, ...stop } = stopped;
  try {
    return { ...stop, ...(await startOnCopy(stopped)) };
  } finally {
    removeTempDir(dir);
  }
}

/** What the row reports: the stop and the start after it. */
export type StoppedHistoryRow = Omit<StoppedHistory, 'dir'> & StartSample;
