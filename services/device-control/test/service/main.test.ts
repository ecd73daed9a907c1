import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const serviceDir = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const tsxCli = resolve(serviceDir, '../../node_modules/tsx/dist/cli.mjs');
const SECRET = 'correct-horse-battery-staple';

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** Runs the entry file as users do, in an empty directory so that no developer .env is read. */
function runMain(env: Record<string, string>): Started {
  const child = spawn(process.execPath, [tsxCli, '--conditions=source', join(serviceDir, 'src/main.ts')], {
    cwd: mkdtempSync(join(tmpdir(), 'device-control-main-')),
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return { child, output: () => output, exited };
}

/** Starts main, runs the test body, and always ends the process. */
async function withMain(env: Record<string, string>, body: (run: Started) => Promise<void>): Promise<void> {
  const run = runMain(env);
  try {
    await body(run);
  } finally {
    if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
    await run.exited;
  }
}

// Each test starts its own process: they run side by side.
describe.concurrent(
  'src/main.ts',
  () => {
    it('runs the simulator with a loud warning when no credentials are set, serves, and stops on SIGTERM', () =>
      withMain({}, async (running) => {
        const listening = /"port":(\d+)[^\n]*"listening"/;
        await expect.poll(() => listening.exec(running.output()), { timeout: 20_000, interval: 50 }).toBeTruthy();
        const port = listening.exec(running.output())![1];

        const health = await fetch(`http://127.0.0.1:${port}/health`);
        const body = (await health.json()) as { backend: string };
        running.child.kill('SIGTERM');

        expect(body.backend).toBe('simulator');
        expect(running.output()).toContain('NO CLOUD CREDENTIALS');
        expect(await running.exited).toBe(0);
      }));

    it('refuses to start with CLOUD_BACKEND=meross and no credentials, naming the problem', () =>
      withMain({ CLOUD_BACKEND: 'meross' }, async (running) => {
        expect(await running.exited).toBe(1);
        expect(running.output()).toContain('CLOUD_BACKEND: meross needs CLOUD_EMAIL and CLOUD_PASSWORD');
      }));

    it('never prints the password when the configuration is invalid', () =>
      withMain({ MEROSS_PASSWORD: SECRET, CLOUD_API_URL: 'http://iotx.meross.com' }, async (running) => {
        expect(await running.exited).toBe(1);
        expect(running.output()).toContain('CLOUD_EMAIL');
        expect(running.output()).not.toContain(SECRET);
      }));
  },
  30_000,
);
