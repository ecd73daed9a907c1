import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CloudDevice, CloudEvent, CloudStatus } from '../../src/domain/device-cloud.js';
import type { CoverReading } from '../../src/families/cover/domain/cover.types.js';
import type { DailyEnergy, PowerReading } from '../../src/families/energy/domain/energy.types.js';
import type { GarageDoorReading } from '../../src/families/garage-door/domain/garage-door.types.js';
import type { HubSubDeviceReading, ValveChange } from '../../src/families/hub/domain/hub.types.js';
import type { LightChange, LightReading } from '../../src/families/light/domain/light.types.js';
import type { ThermostatChange, ThermostatReading } from '../../src/families/thermostat/domain/thermostat.types.js';
import type { MerossCloudOptions } from '../../src/adapters/meross/meross-cloud.adapter.js';
import { afterAll, beforeAll } from 'vitest';
import { eventually } from '@homeops/test-kit';
import { ChildOutput } from './child-output.js';
import { createTestPki, type TestPki } from './pki.js';

const HOST_SCRIPT = fileURLToPath(new URL('./adapter-host.ts', import.meta.url));
const PACKAGE_DIR = fileURLToPath(new URL('../..', import.meta.url));

/** An AppError as it crossed the process boundary. */
export interface RemoteError {
  name?: string;
  code?: string;
  message?: string;
  retryAfterSeconds?: number;
  details?: Array<{ path: string; message: string }>;
}

/** A MerossCloud's options as a test gives them: no logger, and a ManualClock (moved over IPC) or the system clock. */
export type RemoteCloudOptions = Omit<MerossCloudOptions, 'logger' | 'clock'> & {
  /** The adapter runs on a ManualClock the test moves with RemoteCloud.advance; default the system clock. */
  manualClock?: boolean;
};

type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: RemoteError };
type EventMessage = { handle: number; event: CloudEvent };

/**
 * A child process that trusts the emulator's CA and runs MerossCloud instances (one per test, many per process:
 * starting a TypeScript child takes seconds). All output of the process is captured.
 */
export class AdapterHost {
  readonly output: ChildOutput;
  exitCode: number | null = null;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: unknown) => void }>();
  private readonly clouds = new Map<number, RemoteCloud>();
  private nextId = 1;
  private readonly exited: Promise<void>;

  constructor(caFile: string) {
    this.child = fork(HOST_SCRIPT, [], {
      cwd: PACKAGE_DIR,
      execArgv: ['--conditions=source', '--import', 'tsx'],
      env: { ...process.env, NODE_EXTRA_CA_CERTS: caFile },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    this.output = new ChildOutput(this.child);
    this.child.on('message', (message: Reply | EventMessage) => {
      if ('event' in message) {
        this.clouds.get(message.handle)?.events.push(message.event);
        return;
      }
      const call = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (message.ok) call?.resolve(message.value);
      else call?.reject(Object.assign(new Error(message.error.message), message.error));
    });
    this.exited = new Promise((resolve) =>
      this.child.on('exit', (code) => {
        this.exitCode = code ?? -1;
        for (const call of this.pending.values()) call.reject(new Error(`adapter process exited (${code})`));
        resolve();
      }),
    );
  }

  private readonly child: ChildProcess;

  get alive(): boolean {
    return this.exitCode === null;
  }

  /** Resolves once the child has loaded (starting a TypeScript child takes seconds on a busy machine). */
  async ready(): Promise<void> {
    await this.send({ ping: true });
  }

  /** A new MerossCloud in the child (not started). */
  async create(options: RemoteCloudOptions): Promise<RemoteCloud> {
    const handle = (await this.send({ create: options })) as number;
    const cloud = new RemoteCloud((method, args) => this.send({ handle, method, args }));
    this.clouds.set(handle, cloud);
    return cloud;
  }

  /** Ends the process (its adapters stop first); killed if it does not exit within 5 s. */
  async close(): Promise<void> {
    if (!this.alive) return;
    this.child.disconnect();
    const kill = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await this.exited;
    clearTimeout(kill);
  }

  private send(message: object): Promise<unknown> {
    if (!this.alive) return Promise.reject(new Error('adapter process is not running'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.child.send({ id, ...message });
    });
  }
}

/** One MerossCloud in the host process: the DeviceCloud methods over IPC, and the events it emitted. */
export class RemoteCloud {
  readonly events: CloudEvent[] = [];

  constructor(private readonly call: (method: string, args: unknown[]) => Promise<unknown>) {}

  start(): Promise<void> {
    return this.call('start', []) as Promise<void>;
  }

  stop(): Promise<void> {
    return this.call('stop', []) as Promise<void>;
  }

  status(): Promise<CloudStatus> {
    return this.call('status', []) as Promise<CloudStatus>;
  }

  listDevices(): Promise<CloudDevice[]> {
    return this.call('listDevices', []) as Promise<CloudDevice[]>;
  }

  readChannels(uuid: string): Promise<Array<{ channel: number; on: boolean }>> {
    return this.call('readChannels', [uuid]) as Promise<Array<{ channel: number; on: boolean }>>;
  }

  setChannel(uuid: string, channel: number, on: boolean): Promise<void> {
    return this.call('setChannel', [uuid, channel, on]) as Promise<void>;
  }

  readGarageDoors(uuid: string): Promise<GarageDoorReading[]> {
    return this.call('readGarageDoors', [uuid]) as Promise<GarageDoorReading[]>;
  }

  setGarageDoor(uuid: string, channel: number, open: boolean): Promise<GarageDoorReading> {
    return this.call('setGarageDoor', [uuid, channel, open]) as Promise<GarageDoorReading>;
  }

  readCovers(uuid: string): Promise<CoverReading[]> {
    return this.call('readCovers', [uuid]) as Promise<CoverReading[]>;
  }

  moveCover(uuid: string, channel: number, target: number | 'stop'): Promise<void> {
    return this.call('moveCover', [uuid, channel, target]) as Promise<void>;
  }

  readLight(uuid: string): Promise<LightReading[]> {
    return this.call('readLight', [uuid]) as Promise<LightReading[]>;
  }

  setLight(uuid: string, channel: number, change: LightChange): Promise<void> {
    return this.call('setLight', [uuid, channel, change]) as Promise<void>;
  }

  readPower(uuid: string): Promise<PowerReading> {
    return this.call('readPower', [uuid]) as Promise<PowerReading>;
  }

  readDailyEnergy(uuid: string): Promise<DailyEnergy[]> {
    return this.call('readDailyEnergy', [uuid]) as Promise<DailyEnergy[]>;
  }

  readHub(uuid: string): Promise<HubSubDeviceReading[]> {
    return this.call('readHub', [uuid]) as Promise<HubSubDeviceReading[]>;
  }

  setValve(uuid: string, id: string, change: ValveChange): Promise<void> {
    return this.call('setValve', [uuid, id, change]) as Promise<void>;
  }

  readThermostats(uuid: string): Promise<ThermostatReading[]> {
    return this.call('readThermostats', [uuid]) as Promise<ThermostatReading[]>;
  }

  setThermostat(uuid: string, channel: number, change: ThermostatChange): Promise<ThermostatReading> {
    return this.call('setThermostat', [uuid, channel, change]) as Promise<ThermostatReading>;
  }

  submitMfaCode(code: string): Promise<void> {
    return this.call('submitMfaCode', [code]) as Promise<void>;
  }

  /** The adapter's abilitiesKnown, asked over IPC. */
  abilitiesKnown(uuid: string): Promise<boolean> {
    return this.call('abilitiesKnown', [uuid]) as Promise<boolean>;
  }

  /** The time of the adapter's ManualClock. */
  now(): Promise<number> {
    return this.call('clockNow', []) as Promise<number>;
  }

  /** Timers armed on the adapter's ManualClock and not yet fired or cancelled. */
  pendingTimers(): Promise<number> {
    return this.call('clockTimers', []) as Promise<number>;
  }

  /**
   * Moves the adapter's ManualClock by `ms`, then waits until the attempt any timer began has settled. Right after
   * the move a fired retry shows as `connecting` (its first step runs at once): a state other than connecting
   * means no attempt is on its way.
   */
  async advance(ms: number): Promise<CloudStatus> {
    await this.call('advanceClock', [ms]);
    return eventually(async () => {
      const status = await this.status();
      return status.state === 'connecting' ? undefined : status;
    }, 'the attempt to settle after the clock moved');
  }

  /** The error a call failed with (fails the test when it succeeds). */
  async failure(call: Promise<unknown>): Promise<RemoteError> {
    try {
      await call;
    } catch (err) {
      return err as RemoteError;
    }
    throw new Error('expected the call to fail');
  }
}

/**
 * One AdapterHost (with a throwaway PKI the emulators use too) for the whole suite it is called in: started before
 * its tests, closed after them.
 */
export function adapterHostForSuite(): { readonly pki: TestPki; readonly host: AdapterHost } {
  const state: { pki?: TestPki; host?: AdapterHost } = {};
  beforeAll(async () => {
    state.pki = createTestPki();
    state.host = new AdapterHost(state.pki.caFile);
    await state.host.ready();
  }, 30_000);
  afterAll(async () => {
    await state.host?.close();
    state.pki?.remove();
  });
  return {
    get pki() {
      return state.pki!;
    },
    get host() {
      return state.host!;
    },
  };
}

/** Adapter options for a test against an emulated account: its credentials and API, a token file in `dir`, short waits. */
export function emulatedAdapterOptions(
  account: { email: string; password: string },
  apiUrl: string,
  dir: string,
  overrides: Partial<RemoteCloudOptions> = {},
): RemoteCloudOptions {
  return {
    email: account.email,
    password: account.password,
    apiUrl,
    tokenFile: join(dir, 'cloud-token.json'),
    requestTimeoutMs: 2_000,
    commandTimeoutMs: 1_500,
    loginBackoffMs: 300,
    retryBackoffMs: 300,
    maxBackoffMs: 2_000,
    ...overrides,
  };
}
