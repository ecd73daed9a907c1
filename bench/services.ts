import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultSimulatedDevices } from '../services/device-control/src/adapters/simulator/simulated-devices.js';
import { ADAPTER_FAMILIES } from '../services/device-control/src/families/adapters.js';
import type { LoadRequest } from './load.js';
import { freePort, makeTempDir, spawnNode, tailOf, waitUntilReady, type Child } from './processes.js';

/** The repository root (bench/ sits in it). */
export const ROOT = fileURLToPath(new URL('../', import.meta.url));
/** Where every bench writes its results (docs/benchmarks.md links them). */
export const RESULTS = join(ROOT, 'bench/results');
const NOTIFICATIONS_MAIN = join(ROOT, 'services/notifications/dist/main.js');
const DEVICE_CONTROL_MAIN = join(ROOT, 'services/device-control/dist/main.js');
const STARTUP_TIMEOUT_MS = 60_000;
const SEED_TIMEOUT_MS = 180_000;

/** A child listening on a loopback port. */
export interface Running {
  child: Child;
  port: number;
  /** Spawn to the first accepted answer. */
  startupMs: number;
}

/** Builds both services (and what they reference) into dist/, as `pnpm build` does; throws on a compile error. */
export async function buildServices(): Promise<void> {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const configs = ['services/notifications/tsconfig.build.json', 'services/device-control/tsconfig.build.json'];
  const proc = spawn(process.execPath, [tsc, '-b', ...configs], { cwd: ROOT, stdio: 'inherit' });
  const [code] = (await once(proc, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`tsc -b ${configs.join(' ')} failed with exit code ${code}`);
}

async function runToEnd(child: Child, timeoutMs: number): Promise<void> {
  const timer = setTimeout(() => child.process.kill('SIGKILL'), timeoutMs);
  if (child.exited === undefined) await once(child.process, 'exit');
  clearTimeout(timer);
  if (child.exited?.code !== 0) throw new Error(`${child.name} failed (code ${child.exited?.code}):\n${tailOf(child)}`);
}

/** Writes a history of `count` records at `path` through the storage adapter, in a child process; resolves its ms. */
export async function seedHistory(path: string, count: number, logDir: string): Promise<number> {
  const child = spawnNode({
    name: `seed ${count}`,
    args: ['--conditions=source', '--import', 'tsx', 'bench/seed-history.child.ts', path, String(count)],
    env: {},
    cwd: ROOT,
    logFile: join(logDir, 'seed.log'),
  });
  await runToEnd(child, SEED_TIMEOUT_MS);
  const last = readFileSync(child.logFile, 'utf8').trim().split('\n').at(-1) ?? '{}';
  return (JSON.parse(last) as { ms: number }).ms;
}

const MEMORY_PROBE = join(ROOT, 'bench/memory-probe.preload.mjs');

/**
 * The built notification service on a temp history, provider off, no API key; ready when /health answers 200.
 * With `memoryFile`, the memory probe is loaded (see liveMemory); `main`: another checkout's built service (bench/ab-stage.ts).
 */
export async function startNotifications(
  storagePath: string,
  logDir: string,
  memoryFile?: string,
  env: Record<string, string> = {},
  main = NOTIFICATIONS_MAIN,
): Promise<Running> {
  const port = await freePort();
  const probe = memoryFile === undefined ? [] : ['--expose-gc', '--import', MEMORY_PROBE];
  const child = spawnNode({
    name: 'notifications',
    args: [...probe, main],
    env: {
      PORT: String(port),
      HOST: '127.0.0.1',
      STORAGE_PATH: storagePath,
      LOG_LEVEL: 'info',
      ...(memoryFile ? { BENCH_MEMORY_FILE: memoryFile } : {}),
      ...env,
    },
    cwd: logDir, // no .env up the tree from a temp dir
    logFile: join(logDir, 'notifications.log'),
  });
  const startupMs = await waitUntilReady(child, port, '/health', STARTUP_TIMEOUT_MS);
  return { child, port, startupMs };
}

/** The built device-control on the simulator with `deviceCount` devices; ready when GET /devices lists them all. */
export async function startDeviceControl(deviceCount: number, logDir: string, env: Record<string, string> = {}): Promise<Running> {
  const port = await freePort();
  const child = spawnNode({
    name: 'device-control',
    args: [DEVICE_CONTROL_MAIN],
    env: {
      PORT: String(port),
      HOST: '127.0.0.1',
      CLOUD_BACKEND: 'simulator',
      SIMULATOR_EXTRA_DEVICES: String(deviceCount - defaultSimulatedDevices(ADAPTER_FAMILIES).length),
      LOG_LEVEL: 'info',
      ...env,
    },
    cwd: logDir,
    logFile: join(logDir, 'device-control.log'),
  });
  const startupMs = await waitUntilReady(child, port, '/devices', STARTUP_TIMEOUT_MS, (res) => {
    if (res.status !== 200) return false;
    return countDevices(JSON.parse(res.body)) === deviceCount;
  });
  return { child, port, startupMs };
}

/** Devices in a GET /devices body, whether it is the array itself or wraps one. */
export function countDevices(body: unknown): number {
  if (Array.isArray(body)) return body.length;
  if (typeof body === 'object' && body !== null) {
    const list = Object.values(body).find(Array.isArray);
    if (list) return list.length;
  }
  return 0;
}

/** A bare Express 5 process answering `method path` with `status` and exactly `body`. */
export async function startBare(name: string, method: 'get' | 'post', path: string, status: number, body: string): Promise<Running> {
  const dir = makeTempDir('bare');
  const bodyFile = join(dir, 'body.json');
  writeFileSync(bodyFile, body);
  const port = await freePort();
  const child = spawnNode({
    name,
    args: ['--import', 'tsx', 'bench/bare-server.child.ts'],
    env: { PORT: String(port), BARE_METHOD: method, BARE_PATH: path, BARE_STATUS: String(status), BARE_BODY_FILE: bodyFile },
    cwd: ROOT,
    logFile: join(dir, 'bare.log'),
  });
  const startupMs = await waitUntilReady(child, port, '/health', STARTUP_TIMEOUT_MS);
  return { child, port, startupMs };
}

/** heapUsed + external of a service started with a memory file, after two full garbage collections, in MiB. */
export async function liveMemory(child: Child, memoryFile: string): Promise<number> {
  rmSync(memoryFile, { force: true });
  child.process.kill('SIGUSR2');
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    try {
      const usage = JSON.parse(readFileSync(memoryFile, 'utf8')) as { heapUsed: number; external: number };
      return (usage.heapUsed + usage.external) / (1024 * 1024);
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error('the memory probe did not answer within 30 s');
}

/** Restarts the kernel's peak-RSS count (VmHWM) of a process, so a later peak covers only what ran since. */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** The list every notifications run reads, and the create every run posts (a monitoring alert's size). */
export const LIST_PATH = '/notifications/recipient-0';
export const CREATE_BODY = JSON.stringify({
  recipient: 'recipient-0',
  title: 'Backup finished',
  message: 'Nightly backup of /srv on server-12 completed in 4 min 12 s (2.1 GB). Next run tonight at 02:00.',
  priority: 0,
});
export const createRequest = (port: number): LoadRequest => ({ port, method: 'POST', path: '/notifications', body: CREATE_BODY });
