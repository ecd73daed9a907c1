import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { freePort } from '../../bench/processes.js';
import { LAN_HOST } from './lan-browser.js';

const root = resolve(import.meta.dirname, '../..');
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** A service started from source as a child process on 127.0.0.1, in an empty temp working directory. */
export interface ServiceChild {
  port: number;
  stop(): Promise<void>;
}

/** Starts `services/<name>/src/main.ts` with `env` (plus HOST, PORT, and ALLOWED_HOSTS naming LAN_HOST, the name the pages use); resolves once /health answers. */
export async function startService(name: string, env: Record<string, string>): Promise<ServiceChild> {
  const port = await freePort();
  const cwd = mkdtempSync(join(tmpdir(), `browser-${name}-`));
  const child: ChildProcess = spawn(process.execPath, ['--conditions=source', '--import', TSX, join(root, `services/${name}/src/main.ts`)], {
    cwd,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: String(port), ALLOWED_HOSTS: LAN_HOST, LOG_LEVEL: 'warn', ...env },
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const stop = async () => {
    if (child.exitCode === null) process.kill(child.pid!, 'SIGKILL');
    await exited;
    rmSync(cwd, { recursive: true, force: true });
  };
  const deadline = Date.now() + 30_000;
  while (
    !(await fetch(`http://127.0.0.1:${port}/health`).then(
      () => true,
      () => false,
    ))
  ) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`${name} did not start: ${stderr.slice(-2000)}`);
    }
    await new Promise((done) => setTimeout(done, 200));
  }
  return { port, stop };
}
