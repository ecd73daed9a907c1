import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ServiceProcess, watchChild, type ExitStatus } from '@homeops/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../src/index.js';
import { makeTempDir } from '../support/test-app.js';

const serviceDir = fileURLToPath(new URL('../..', import.meta.url));

let holder: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (holder ? holder.close(() => resolve()) : resolve())));

/** A port another process would hold: a plain TCP server on 127.0.0.1. */
async function takenPort(): Promise<number> {
  holder = createServer();
  await new Promise<void>((resolve) => holder!.listen(0, '127.0.0.1', resolve));
  return (holder.address() as { port: number }).port;
}

/** Runs `script` (ES module, from this service's folder) to its end, or kills it after `boundMs`. */
async function runScript(script: string, args: string[], boundMs = 20_000): Promise<ExitStatus & { stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', '--input-type=module', '-e', script, ...args], {
    cwd: serviceDir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = watchChild(child, () => undefined);
  const kill = setTimeout(() => child.kill('SIGKILL'), boundMs);
  const status = await exited;
  clearTimeout(kill);
  return { ...status, stdout, stderr };
}

describe('notifications main on a port in use', () => {
  it('logs one JSON fatal line naming the port, nothing on stderr, and exits with code 1', { timeout: 60_000 }, async () => {
    const port = await takenPort();
    const service = await ServiceProcess.launch({ service: 'notifications', env: { PORT: String(port) } });
    let stderr = '';
    service.child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));

    // It must end by itself (the test's timeout bounds the wait); stop() then only removes its folder.
    const status = await service.exited;
    await service.stop();

    expect(status).toEqual({ code: 1, signal: null });
    expect(stderr).toBe('');
    const lines = service.output
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { level: number; msg: string });
    const failures = lines.filter((line) => line.level >= 50);
    expect(failures).toEqual([
      expect.objectContaining({ level: 60, port, code: 'EADDRINUSE', msg: expect.stringContaining(`port ${port} on 127.0.0.1 is already in use`) }),
    ]);
    expect(service.output).not.toMatch(/\n\s+at /);
  });
});

// The embedding app's side: the script exits by itself only if the failed start left no handle open.
const LIBRARY_SCRIPT = `
const [entry, port, storagePath, mode] = process.argv.slice(1);
const { App } = await import(entry);
const options = { host: '127.0.0.1', provider: false, logLevel: 'silent' };
const clash = new App({ ...options, port: Number(port), storagePath });
const error = await clash.start().then(() => undefined, (err) => err.message);
let reopened = null;
if (mode === 'reopen') {
  const next = new App({ ...options, port: 0, storagePath });
  await next.start();
  reopened = next.port > 0;
  await next.stop();
}
process.stdout.write(JSON.stringify({ error, reopened }));
`;

describe('App.start() on a port in use', () => {
  it('rejects naming the port, and the same history opens again at once in a new App', async () => {
    const port = await takenPort();
    const storagePath = join(await makeTempDir(), 'n.yaml');
    const options = { host: '127.0.0.1', provider: false as const, logLevel: 'silent' as const };

    await expect(new App({ ...options, port, storagePath }).start()).rejects.toThrow(`port ${port} on 127.0.0.1 is already in use`);
    const next = new App({ ...options, port: 0, storagePath });
    await next.start();
    await next.stop();
  });

  it('leaves nothing open: a script that only tries to start ends by itself', { timeout: 60_000 }, async () => {
    const port = await takenPort();
    const storagePath = join(await makeTempDir(), 'n.yaml');

    const result = await runScript(LIBRARY_SCRIPT, [join(serviceDir, 'src/index.ts'), String(port), storagePath, 'only']);

    expect(result).toMatchObject({ code: 0, signal: null, stderr: '' });
    expect(JSON.parse(result.stdout)).toEqual({ error: expect.stringContaining(`port ${port}`), reopened: null });
  });

  it('ends by itself after a new App on the same history started and stopped', { timeout: 60_000 }, async () => {
    const port = await takenPort();
    const storagePath = join(await makeTempDir(), 'n.yaml');

    const result = await runScript(LIBRARY_SCRIPT, [join(serviceDir, 'src/index.ts'), String(port), storagePath, 'reopen']);

    expect(result).toMatchObject({ code: 0, signal: null, stderr: '' });
    expect(JSON.parse(result.stdout)).toEqual({ error: expect.stringContaining(`port ${port}`), reopened: true });
  });
});
