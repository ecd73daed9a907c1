import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordChild } from './child-ledger.js';
import { serviceBundle } from './service-build.js';
import { watchChild, type ExitStatus } from './child-watch.js';
import { eventually } from './wait.js';

export interface ServiceProcessOptions {
  /** `device-control` or `notifications`: runs `services/<service>/src/main.ts` from source (bundled once per test
   * process, see service-build.ts), as `pnpm start` runs it. */
  service: 'device-control' | 'notifications';
  /** Variables beside PATH, HOST=127.0.0.1, PORT (a free one) and LOG_LEVEL=info; nothing else of the test's environment leaks in. */
  env?: Record<string, string>;
  /** Working directory; default a fresh temp folder, removed on stop, so no developer `.env` is read. */
  cwd?: string;
  /** How long the service may take to answer /health; default 20 s. */
  readyTimeoutMs?: number;
}

/** The one launcher of the test suites: a service as users run it, in a child process, on loopback. */
export class ServiceProcess {
  /** Everything the process printed so far (stdout and stderr), for secret scans and log checks. */
  output = '';
  readonly exited: Promise<ExitStatus>;

  private constructor(
    readonly child: ChildProcess,
    readonly port: number,
    private readonly ownedDir: string | undefined,
  ) {
    this.exited = watchChild(child, (text) => (this.output += text));
  }

  static async start(options: ServiceProcessOptions): Promise<ServiceProcess> {
    const service = await ServiceProcess.launch(options);
    try {
      await eventually(
        async () => {
          if (!service.running) throw new Error(`it exited (${service.child.exitCode ?? service.child.signalCode})`);
          return (await fetch(`${service.baseUrl}/health`, { signal: AbortSignal.timeout(2_000) }).catch(() => null)) !== null;
        },
        { what: `${options.service} to answer /health`, timeoutMs: options.readyTimeoutMs ?? 20_000, intervalMs: 50 },
      );
    } catch (err) {
      await service.kill();
      throw new Error(`${(err as Error).message}\n${service.output.slice(-3000)}`);
    }
    return service;
  }

  /**
   * The same process as `start`, without waiting for it to answer: for a start that is meant to fail (await
   * `exited`, then `stop()` removes the temp folder).
   */
  static async launch(options: ServiceProcessOptions): Promise<ServiceProcess> {
    const port = options.env?.PORT ? Number(options.env.PORT) : await freePort();
    const ownedDir = options.cwd ? undefined : mkdtempSync(join(tmpdir(), `${options.service}-`));
    const child = spawn(process.execPath, [await serviceBundle(options.service)], {
      cwd: options.cwd ?? ownedDir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...options.env, PORT: String(port) },
    });
    recordChild(child, `${options.service}.mjs`);
    return new ServiceProcess(child, port, ownedDir);
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Waits until the output contains `pattern`; resolves with the match. */
  async waitForOutput(pattern: RegExp, timeoutMs = 10_000): Promise<RegExpExecArray> {
    return eventually(() => pattern.exec(this.output), { what: `output matching ${String(pattern)}`, timeoutMs });
  }

  /** A signal (default SIGTERM) and wait, SIGKILL after `graceMs`; the temp folder it owns is removed. */
  async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000): Promise<ExitStatus> {
    if (this.running) this.child.kill(signal);
    const force = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    const status = await this.exited;
    clearTimeout(force);
    if (this.ownedDir) rmSync(this.ownedDir, { recursive: true, force: true });
    return status;
  }

  /** SIGKILL, as a crash or `kill -9`. */
  kill(): Promise<ExitStatus> {
    return this.stop('SIGKILL', 0);
  }
}

/** A loopback port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return port;
}
