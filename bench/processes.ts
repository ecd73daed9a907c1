import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A process the harness started and will stop, with the file its output goes to. */
export interface Child {
  name: string;
  process: ChildProcess;
  pid: number;
  /** performance.now() just before spawn. */
  spawnedAt: number;
  logFile: string;
  /** Set when the process ended before it was stopped. */
  exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
}

const children = new Set<Child>();
const groups = new Set<ChildProcess>();
const tempDirs = new Set<string>();

/** SIGKILL to a detached child's whole process group (it and whatever it started). */
export function killProcessGroup(proc: ChildProcess): void {
  if (proc.pid === undefined) return;
  try {
    process.kill(-proc.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Remembers a detached child so cleanUpNow stops its group; returns the function that forgets it. */
export function trackProcessGroup(proc: ChildProcess): () => void {
  groups.add(proc);
  return () => groups.delete(proc);
}

/** Kills every child still running and removes every temp dir, synchronously (usable from 'exit'). */
export function cleanUpNow(): void {
  for (const child of children) {
    if (child.exited === undefined) child.process.kill('SIGKILL');
  }
  children.clear();
  for (const proc of groups) killProcessGroup(proc);
  groups.clear();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}

/** Children and temp dirs go away on normal exit, on an uncaught error and on Ctrl-C / SIGTERM. */
export function installCleanupHandlers(): void {
  process.once('exit', cleanUpNow);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      console.error(`\nbench: ${signal}, stopping children`);
      cleanUpNow();
      process.exit(130);
    });
  }
}

/** A temp dir removed at exit (or earlier by the caller). */
export function makeTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `homeops-bench-${prefix}-`));
  tempDirs.add(dir);
  return dir;
}

export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  tempDirs.delete(dir);
}

/** A loopback port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

export interface SpawnOptions {
  name: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** Where stdout and stderr go (a file, so a busy logger never waits on the harness). */
  logFile: string;
}

// Variables that would change what the services do (credentials, keys, ports); children get a clean copy.
const INHERITED = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ', 'NODE_OPTIONS'];

/** Starts `node <args>` with only the given variables plus a few harmless ones inherited. */
export function spawnNode({ name, args, env, cwd, logFile }: SpawnOptions): Child {
  const base: Record<string, string> = {};
  for (const key of INHERITED) if (process.env[key] !== undefined) base[key] = process.env[key]!;
  const out = openSync(logFile, 'a');
  const spawnedAt = performance.now();
  const proc = spawn(process.execPath, args, { cwd, env: { ...base, ...env }, stdio: ['ignore', out, out] });
  closeSync(out);
  if (proc.pid === undefined) throw new Error(`could not start ${name}`);
  const child: Child = { name, process: proc, pid: proc.pid, spawnedAt, logFile, exited: undefined };
  children.add(child);
  proc.once('exit', (code, signal) => {
    child.exited = { code, signal };
  });
  return child;
}

/** SIGTERM, then SIGKILL after a grace period; resolves when the process is gone. */
export async function stopChild(child: Child, graceMs = 5_000): Promise<void> {
  if (child.exited === undefined) {
    const gone = new Promise<void>((resolve) => child.process.once('exit', () => resolve()));
    child.process.kill('SIGTERM');
    const timer = setTimeout(() => child.process.kill('SIGKILL'), graceMs);
    await gone;
    clearTimeout(timer);
  }
  children.delete(child);
}

/** The last lines the child wrote, for error messages. */
export function tailOf(child: Child, lines = 15): string {
  try {
    return readFileSync(child.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no output)';
  }
}

/** One GET on loopback without keep-alive; rejects on connection errors. */
export function httpGet(port: number, path: string, timeoutMs = 2_000): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false, timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

/**
 * Polls until `ready` accepts a response, the child exits, or the deadline passes.
 * Resolves the milliseconds from spawn to the accepted answer.
 */
export async function waitUntilReady(
  child: Child,
  port: number,
  path: string,
  timeoutMs: number,
  ready: (res: { status: number; body: string }) => boolean = (res) => res.status === 200,
): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  let last = 'no answer';
  while (performance.now() < deadline) {
    if (child.exited !== undefined) {
      throw new Error(`${child.name} exited (code ${child.exited.code}, signal ${child.exited.signal}) before answering:\n${tailOf(child)}`);
    }
    try {
      const res = await httpGet(port, path, 1_000);
      if (ready(res)) return performance.now() - child.spawnedAt;
      last = `status ${res.status}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`${child.name} not ready on ${path} after ${timeoutMs} ms (${last}):\n${tailOf(child)}`);
}

/** Resident memory of a process from /proc (Linux): current and peak, in MiB. */
export function readMemory(pid: number): { rssMb: number; peakRssMb: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rssMb: kb('VmRSS') / 1024, peakRssMb: kb('VmHWM') / 1024 };
  } catch {
    return undefined;
  }
}

let clockTicks: number | undefined;

/** CPU time (user + system) a process has used so far, in ms, from /proc/<pid>/stat (Linux). */
export function readCpuMs(pid: number): number | undefined {
  try {
    clockTicks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces) start at field 3; utime and stime are 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks;
  } catch {
    return undefined;
  }
}

/**
 * CPU time of a server and its worker processes (PostgreSQL's postmaster and backends): the root's own and reaped
 * children's time, plus that of the children still running.
 */
export function readProcessTreeCpuMs(rootPid: number): number | undefined {
  try {
    clockTicks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    let ticks = 0;
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      let stat: string;
      try {
        stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      } catch {
        continue; // exited while listed
      }
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const [ppid, utime, stime, cutime, cstime] = [1, 11, 12, 13, 14].map((i) => Number(fields[i]));
      if (Number(entry) === rootPid) ticks += utime! + stime! + cutime! + cstime!;
      else if (ppid === rootPid) ticks += utime! + stime!;
    }
    return (ticks * 1000) / clockTicks;
  } catch {
    return undefined;
  }
}
