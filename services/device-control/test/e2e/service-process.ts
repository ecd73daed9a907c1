import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ChildOutput, eventually } from '../emulator/child-output.js';
import type { EmulatedAccount } from '../emulator/meross-emulator.js';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** An HTTP answer of the service under test. */
export interface ServiceResponse {
  status: number;
  headers: Headers;
  body: unknown;
}

/**
 * device-control as users run it (`src/main.ts`, CLOUD_BACKEND=meross) in a child process whose Node trusts the
 * emulator's CA. It runs in an empty working directory so no developer `.env` leaks in; all its output is kept.
 */
export class ServiceProcess {
  readonly output: ChildOutput;
  /** Every response body the service sent to this helper, for secret scans. */
  readonly bodies: string[] = [];
  private port = 0;
  private readonly exited: Promise<number>;

  private constructor(private readonly child: ChildProcess) {
    this.output = new ChildOutput(child);
    this.exited = new Promise((resolve) => child.on('exit', (code) => resolve(code ?? -1)));
  }

  static async start(options: {
    apiUrl: string;
    account: EmulatedAccount;
    caFile: string;
    workDir: string;
    env?: Record<string, string>;
  }): Promise<ServiceProcess> {
    const port = await freePort();
    const child = spawn(process.execPath, ['--conditions=source', '--import', TSX_LOADER, MAIN], {
      cwd: options.workDir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH ?? '',
        NODE_EXTRA_CA_CERTS: options.caFile,
        HOST: '127.0.0.1',
        PORT: String(port),
        LOG_LEVEL: 'debug',
        CLOUD_BACKEND: 'meross',
        CLOUD_EMAIL: options.account.email,
        CLOUD_PASSWORD: options.account.password,
        CLOUD_API_URL: options.apiUrl,
        CLOUD_TOKEN_FILE: `${options.workDir}/data/cloud-token.json`,
        CLOUD_REQUEST_TIMEOUT_MS: '2000',
        CLOUD_COMMAND_TIMEOUT_MS: '1000',
        CLOUD_SYNC_INTERVAL_SECONDS: '0',
        SSE_HEARTBEAT_SECONDS: '1',
        ...options.env,
      },
    });
    // Never outlive the test process, even when it dies without running its afterAll hooks.
    const orphanGuard = () => child.kill('SIGKILL');
    process.once('exit', orphanGuard);
    child.once('exit', () => process.removeListener('exit', orphanGuard));
    const service = new ServiceProcess(child);
    service.port = port;
    await eventually(
      async () => {
        if (child.exitCode !== null) throw new Error(`service exited (${child.exitCode}): ${service.output.text.slice(-2000)}`);
        return (await fetch(`${service.baseUrl}/health`).catch(() => null)) !== null;
      },
      'the service to listen',
      20_000,
    );
    return service;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  async request(method: string, path: string, body?: unknown): Promise<ServiceResponse> {
    const init: RequestInit = { method, signal: AbortSignal.timeout(10_000) };
    if (body !== undefined) {
      init.headers = { 'content-type': 'application/json' };
      init.body = JSON.stringify(body);
    }
    const res = await fetch(`${this.baseUrl}${path}`, init);
    const text = await res.text();
    this.bodies.push(text);
    return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as unknown) : null };
  }

  /** SIGTERM and wait (SIGKILL after 10 s); resolves with the exit code. */
  async stop(): Promise<number> {
    if (this.running) this.child.kill('SIGTERM');
    const kill = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    const code = await this.exited;
    clearTimeout(kill);
    return code;
  }
}

/** A port nobody listens on right now (the service binds it a moment later). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A GET /events subscription that collects every event until closed. */
export class EventStream {
  readonly events: Array<{ event: string; data: unknown }> = [];
  private readonly abort = new AbortController();

  private constructor() {}

  static async open(baseUrl: string): Promise<EventStream> {
    const stream = new EventStream();
    const res = await fetch(`${baseUrl}/events`, { signal: stream.abort.signal });
    if (res.status !== 200 || !res.body) throw new Error(`GET /events answered ${res.status}`);
    void stream.read(res.body).catch(() => undefined);
    return stream;
  }

  close(): void {
    this.abort.abort();
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of body) {
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: ?(.*)$/m.exec(block)?.[1];
        const data = /^data: ?(.*)$/m.exec(block)?.[1];
        if (event && data) this.events.push({ event, data: JSON.parse(data) as unknown });
      }
    }
  }
}
