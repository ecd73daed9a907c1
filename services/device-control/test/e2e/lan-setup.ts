import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, ServiceProcess } from '@homeops/test-kit';
import { createAccount, MerossEmulator, type EmulatedAccount, type EmulatedDeviceSpec } from '../emulator/meross-emulator.js';
import { createTestPki, type TestPki } from '../emulator/pki.js';

export const PLUG = 'plug0000000000000000000000000001';
export const STRIP = 'strip000000000000000000000000002';
export const DOOR = 'door0000000000000000000000000005';
export const BLINDS = 'blinds00000000000000000000000006';
export const BULB = 'bulb0000000000000000000000000007';
export const HUB = 'hub00000000000000000000000000008';
/** Newer firmware: takes LAN messages only encrypted. */
export const SEALED = 'sealed000000000000000000000000009';
export const VALVE = '01008C11';

/** A house with every family: an energy plug, a strip, a garage door, blinds, a bulb, a hub, and an encrypted plug. */
export function house(): EmulatedDeviceSpec[] {
  return [
    { uuid: PLUG, name: 'Desk lamp', type: 'mss310' },
    { uuid: STRIP, name: 'Power strip', type: 'mss425f', outlets: ['Monitor', 'Printer', 'Router', 'USB'] },
    { uuid: DOOR, name: 'Garage', type: 'msg100', garageDoor: true },
    { uuid: BLINDS, name: 'Blinds', type: 'mrs100', cover: true, firmware: '7.1.0' },
    { uuid: BULB, name: 'Bulb', type: 'msl430', lightCapacity: 5 },
    {
      uuid: HUB,
      name: 'Hub',
      type: 'msh300',
      protocol: 'none',
      hubDevices: [
        { id: VALVE, name: 'Bedroom valve', kind: 'valve' },
        { id: '120027D2', name: 'Cellar', kind: 'sensor' },
      ],
    },
    { uuid: SEALED, name: 'Kettle', type: 'mss210', encryption: true },
  ];
}

/** One device as GET /devices shows it. */
export interface DeviceBody {
  uuid: string;
  name: string;
  online: boolean;
  controllable: boolean;
  transport: 'lan' | 'cloud' | 'unreachable';
  address: string | null;
  lanProblem: string | null;
  channels: Array<{ channel: number; on: boolean | null }>;
}

/** An answer of the service. */
export interface Answer {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of JSON answers
}

/** The emulated cloud and LAN, and device-control (src/main.ts, CLOUD_BACKEND=meross) against both. */
export class LanSetup {
  service: ServiceProcess | undefined;

  private constructor(
    readonly pki: TestPki,
    readonly account: EmulatedAccount,
    readonly emulator: MerossEmulator,
    readonly workDir: string,
    private readonly env: Record<string, string>,
  ) {}

  /** The emulator with these devices; the service is started with `startService`. */
  static async create(devices: EmulatedDeviceSpec[] = house(), env: Record<string, string> = {}): Promise<LanSetup> {
    const pki = createTestPki();
    const account = createAccount();
    const emulator = await MerossEmulator.start({ pki, account, devices });
    return new LanSetup(pki, account, emulator, mkdtempSync(join(tmpdir(), 'device-control-lan-')), env);
  }

  /** Starts (or starts again, with the token and the device list of the last run) the service. */
  async startService(env: Record<string, string> = {}): Promise<ServiceProcess> {
    this.service = await ServiceProcess.start({
      service: 'device-control',
      cwd: this.workDir,
      env: {
        NODE_EXTRA_CA_CERTS: this.pki.caFile,
        LOG_LEVEL: 'debug',
        CLOUD_BACKEND: 'meross',
        CLOUD_EMAIL: this.account.email,
        CLOUD_PASSWORD: this.account.password,
        CLOUD_API_URL: this.emulator.apiUrl,
        CLOUD_TOKEN_FILE: join(this.workDir, 'data', 'cloud-token.json'),
        CLOUD_REQUEST_TIMEOUT_MS: '2000',
        CLOUD_COMMAND_TIMEOUT_MS: '1500',
        CLOUD_SYNC_INTERVAL_SECONDS: '0',
        // The first run's discovery (one System.All per device) is background work: with the default 15 per minute it
        // waits up to a minute for the budget's background share; tests widen the window instead of waiting.
        CLOUD_MAX_MESSAGES_PER_MINUTE: '40',
        SSE_HEARTBEAT_SECONDS: '1',
        // The emulator's devices listen on one port of their own (a test cannot bind 80).
        MEROSS_LAN_PORT: String(this.emulator.lanPort),
        MEROSS_LAN_TIMEOUT_MS: '500',
        MEROSS_LAN_POLL_SECONDS: '0.5',
        ...this.env,
        ...env,
      },
    });
    return this.service;
  }

  async request(method: string, path: string, body?: unknown): Promise<Answer> {
    const res = await fetch(`${this.service!.baseUrl}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }

  async devices(): Promise<DeviceBody[]> {
    const res = await this.request('GET', '/devices');
    if (res.status !== 200) throw new Error(`GET /devices: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as DeviceBody[];
  }

  async device(uuid: string): Promise<DeviceBody> {
    return (await this.request('GET', `/devices/${uuid}`)).body as DeviceBody;
  }

  async health(): Promise<Answer> {
    return this.request('GET', '/health');
  }

  /** Waits until every device of the emulator is reached over the LAN. */
  async allOnLan(timeoutMs = 20_000): Promise<void> {
    await eventually(
      async () => {
        const listed = await this.devices().catch(() => []);
        return listed.length === this.emulator.devices.size && listed.every((d) => d.transport === 'lan');
      },
      { what: 'every device on the LAN', timeoutMs },
    ).catch(async (err: unknown) => {
      throw new Error(`${(err as Error).message}: ${JSON.stringify(await this.devices().catch(() => null))}`);
    });
  }

  /** What reached the cloud so far: API calls by kind, MQTT requests to devices, broker connections; and LAN requests. */
  counts() {
    const { api, mqttRequests, mqttConnections, lanRequests } = this.emulator.messageCounts();
    return { api, signIn: this.emulator.api.calls.signIn, devList: this.emulator.api.calls.devList, mqttRequests, mqttConnections, lanRequests };
  }

  async stopService(): Promise<void> {
    await this.service?.stop();
    this.service = undefined;
  }

  async stop(): Promise<void> {
    await this.stopService();
    await this.emulator.stop();
    this.pki.remove();
    rmSync(this.workDir, { recursive: true, force: true });
  }
}

/** What changed between two snapshots of `counts()`. */
export function delta(after: ReturnType<LanSetup['counts']>, before: ReturnType<LanSetup['counts']>): ReturnType<LanSetup['counts']> {
  return Object.fromEntries(Object.entries(after).map(([k, v]) => [k, v - before[k as keyof typeof before]])) as ReturnType<LanSetup['counts']>;
}
