import { ServiceProcess, type ExitStatus } from '@homeops/test-kit';
import type { EmulatedAccount } from '../emulator/meross-emulator.js';

/** An HTTP answer of the service under test. */
export interface ServiceResponse {
  status: number;
  headers: Headers;
  body: unknown;
}

/** Where the service finds the emulated cloud, and what else a test sets. */
export interface EmulatedServiceOptions {
  apiUrl: string;
  /** The port the emulated devices answer LAN messages on (MEROSS_LAN_PORT), for a test that turns the LAN on. */
  lanPort?: number;
  account: EmulatedAccount;
  /** The emulator's CA, which the service's Node trusts (NODE_EXTRA_CA_CERTS). */
  caFile: string;
  /** Working directory (the token file goes to `data/` in it); the caller removes it. */
  workDir: string;
  env?: Record<string, string>;
}

/**
 * device-control with CLOUD_BACKEND=meross against the emulated cloud, launched by test-kit's ServiceProcess with
 * short timeouts, plus a JSON client that keeps every body the service sent it, for secret scans. The LAN is off
 * unless `env` turns it on (MEROSS_LAN=on, with `lanPort`): these suites are about the cloud path, and with the LAN on
 * every device would be tried on port 80 first and fall back to the cloud.
 */
export class EmulatedService {
  /** Every response body the service sent to this helper. */
  readonly bodies: string[] = [];

  private constructor(readonly serviceProcess: ServiceProcess) {}

  static async start(options: EmulatedServiceOptions): Promise<EmulatedService> {
    const serviceProcess = await ServiceProcess.start({
      service: 'device-control',
      cwd: options.workDir,
      env: {
        NODE_EXTRA_CA_CERTS: options.caFile,
        LOG_LEVEL: 'debug',
        CLOUD_BACKEND: 'meross',
        CLOUD_EMAIL: options.account.email,
        CLOUD_PASSWORD: options.account.password,
        CLOUD_API_URL: options.apiUrl,
        CLOUD_TOKEN_FILE: `${options.workDir}/data/cloud-token.json`,
        CLOUD_REQUEST_TIMEOUT_MS: '2000',
        CLOUD_COMMAND_TIMEOUT_MS: '1000',
        // A broker restart costs a quarter of a second, not meross-cloud's 5 s.
        CLOUD_BROKER_RECONNECT_MS: '250',
        // An unreachable API is tried again after half a second (doubling), not 5 s.
        CLOUD_RETRY_BACKOFF_MS: '500',
        CLOUD_SYNC_INTERVAL_SECONDS: '0',
        SSE_HEARTBEAT_SECONDS: '1',
        MEROSS_LAN: 'off',
        ...(options.lanPort === undefined ? {} : { MEROSS_LAN_PORT: String(options.lanPort) }),
        ...options.env,
      },
    });
    return new EmulatedService(serviceProcess);
  }

  get baseUrl(): string {
    return this.serviceProcess.baseUrl;
  }

  get running(): boolean {
    return this.serviceProcess.running;
  }

  /** Everything the process printed (stdout and stderr). */
  get output(): string {
    return this.serviceProcess.output;
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

  /** SIGTERM and wait (SIGKILL after 10 s). */
  stop(): Promise<ExitStatus> {
    return this.serviceProcess.stop();
  }
}
