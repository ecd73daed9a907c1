import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, type Logger } from '@homeops/common';
import { parseConfig } from '../../src/config.js';
import { startNotifications } from '../../src/compose.js';

/** The service as main starts it (real YAML history, real server), on 127.0.0.1 and a free port. */
export interface RunningTestService {
  port: number;
  dir: string;
  storagePath: string;
  stop(): Promise<void>;
}

/** A fresh temp directory for one suite; remove it with `rm(dir, { recursive: true, force: true })`. */
export function makeStorageDir(prefix = 'notifications-hostile-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

/** Starts the real wiring (startNotifications, as main does) on `dir/notifications.yaml`; extra env as the service reads it. */
export async function startRealService(dir: string, env: Record<string, string> = {}, logger?: Logger): Promise<RunningTestService> {
  const storagePath = join(dir, 'notifications.yaml');
  const config = parseConfig({ PORT: '0', HOST: '127.0.0.1', STORAGE_PATH: storagePath, LOG_LEVEL: 'silent', ...env });
  const log = logger ?? createLogger({ service: 'test', level: 'silent' });
  const running = await startNotifications(config, { logger: log }, { handleSignals: false });
  return { port: running.port, dir, storagePath, stop: () => running.stop() };
}

/** A digest of every file name and byte under `dir`. */
export async function hashDir(dir: string): Promise<string> {
  const hash = createHash('sha256');
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
  for (const file of files) {
    hash.update(`${file}\0`);
    hash.update(await readFile(file));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** Removes a suite's directory. */
export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}
