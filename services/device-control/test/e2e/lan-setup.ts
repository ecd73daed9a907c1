import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '@homeops/test-kit';
import { familyDevices, SEALED, STRIP } from '../emulator/family-devices.js';
import { createAccount, MerossEmulator, type EmulatedAccount, type EmulatedDeviceSpec } from '../emulator/meross-emulator.js';
import { createTestPki, type TestPki } from '../emulator/pki.js';
import { EmulatedService } from './service-process.js';

export { BLINDS, BULB, DOOR, HUB, PLUG, SEALED, STRIP, VALVE } from '../emulator/family-devices.js';

/** A house with every family (an energy plug, a garage door, blinds, a bulb, a hub), a strip and an encrypted plug. */
export function house(): EmulatedDeviceSpec[] {
  return [
    ...familyDevices(),
    { uuid: STRIP, name: 'Power strip', type: 'mss425f', outlets: ['Monitor', 'Printer', 'Router', 'USB'] },
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
  service: EmulatedService | undefined;

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

  /** Starts (or starts again, with the token and the device list of the last run) the service, the LAN on. */
  async startService(env: Record<string, string> = {}): Promise<EmulatedService> {
    this.service = await EmulatedService.start({
      apiUrl: this.emulator.apiUrl,
      lanPort: this.emulator.lanPort,
      account: this.account,
      caFile: this.pki.caFile,
      workDir: this.workDir,
      env: {
        CLOUD_COMMAND_TIMEOUT_MS: '1500',
        // The first run's discovery (one System.All per device) is background work: with the default 15 per minute it
        // waits up to a minute for the budget's background share; tests widen the window instead of waiting.
        CLOUD_MAX_MESSAGES_PER_MINUTE: '40',
        MEROSS_LAN: 'on',
        MEROSS_LAN_TIMEOUT_MS: '500',
        MEROSS_LAN_POLL_SECONDS: '0.5',
        ...this.env,
        ...env,
      },
    });
    return this.service;
  }

  async request(method: string, path: string, body?: unknown): Promise<Answer> {
    const { status, body: answer } = await this.service!.request(method, path, body);
    return { status, body: answer };
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
