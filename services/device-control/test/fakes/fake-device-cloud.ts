import { AppError } from '@homeops/common';
import {
  NO_TOKEN_STORE,
  type Capability,
  type CloudBackend,
  type CloudDevice,
  type CloudEvent,
  type CloudSessionState,
  type CloudStatus,
  type DeviceCloud,
  type TokenStoreStatus,
} from '../../src/domain/device-cloud.js';
import { type CoverReading } from '../../src/families/cover/domain/cover.types.js';
import { type DailyEnergy, type PowerReading } from '../../src/families/energy/domain/energy.types.js';
import { type GarageDoorReading, type GarageDoorState } from '../../src/families/garage-door/domain/garage-door.types.js';
import { NO_HUB_READINGS, type HubSubDeviceReading, type ValveChange } from '../../src/families/hub/domain/hub.types.js';
import { type LightChange, type LightFeatures, type LightReading } from '../../src/families/light/domain/light.types.js';
import { type ThermostatChange, type ThermostatReading } from '../../src/families/thermostat/domain/thermostat.types.js';

/** How a call of the fake fails: no answer, the cloud's error, the session down, or any given error. */
export type FakeFailure = 'timeout' | 'cloud-error' | 'unavailable' | Error;

type Method =
  | 'start'
  | 'stop'
  | 'listDevices'
  | 'readChannels'
  | 'setChannel'
  | 'readGarageDoors'
  | 'setGarageDoor'
  | 'readCovers'
  | 'moveCover'
  | 'readLight'
  | 'setLight'
  | 'readPower'
  | 'readDailyEnergy'
  | 'readHub'
  | 'setValve'
  | 'readThermostats'
  | 'setThermostat'
  | 'submitMfaCode';

/** A recorded call. */
export interface FakeCall {
  method: Method;
  args: unknown[];
}

interface FakeDevice {
  device: CloudDevice;
  states: Map<number, boolean>;
  /** Garage doors: open or not, per channel. */
  doors: Map<number, boolean>;
  /** Covers: position per channel. */
  covers: Map<number, number>;
  /** Lights: settings per channel. */
  lights: Map<number, LightReading>;
}

/** A device description with test defaults: online, connected, switchable, one channel. */
export function cloudDevice(overrides: Partial<CloudDevice> & { uuid: string }): CloudDevice {
  return {
    name: `Device ${overrides.uuid}`,
    type: 'mss310',
    online: true,
    commandReady: true,
    switchable: overrides.switchable ?? true,
    channels: [{ channel: 0, name: overrides.name ?? `Device ${overrides.uuid}` }],
    ...overrides,
    capabilities: overrides.capabilities ?? ((overrides.switchable ?? true) ? ['switch'] : []),
  };
}

/** A smart bulb (msl430): a switch and a light with the given features (all by default). */
export function smartBulb(overrides: Partial<CloudDevice> & { uuid: string }): CloudDevice {
  return cloudDevice({ name: 'Bulb', type: 'msl430', capabilities: ['switch', 'light'], ...overrides });
}

/** What the fake's lights support; tests change it before adding a device. */
export const ALL_LIGHT_FEATURES: LightFeatures = { brightness: true, temperature: true, rgb: true };

const QUIET = { online: true, battery: 90, temperature: null, humidity: null, on: null, targetTemperature: null, minTemperature: null, maxTemperature: null };

/** A leak (ms400), a smoke (gs559) and a door/window sensor (ms200), all quiet: push them into `hubDevices`. */
export function safetySensors(): HubSubDeviceReading[] {
  return [
    { ...QUIET, id: 'leak-1', name: 'Laundry', kind: 'leak', model: 'ms400', leak: false, smoke: null, open: null },
    { ...QUIET, id: 'smoke-1', name: 'Hallway', kind: 'smoke', model: 'gs559', leak: null, smoke: 'clear', open: null },
    { ...QUIET, id: 'door-1', name: 'Front door', kind: 'contact', model: 'ms200', leak: null, smoke: null, open: false },
  ];
}

/** A hub (msh300) with the fake's `hubDevices` behind it. */
export function hub(overrides: Partial<CloudDevice> & { uuid: string }): CloudDevice {
  return cloudDevice({ name: 'Hub', type: 'msh300', switchable: false, capabilities: ['hubSensors'], ...overrides });
}

/** A thermostat (mts200b): the fake's `thermostatReading` on channel 0. */
export function thermostat(overrides: Partial<CloudDevice> & { uuid: string }): CloudDevice {
  return cloudDevice({ name: 'Thermostat', type: 'mts200b', switchable: false, capabilities: ['thermostat'], ...overrides });
}

/** An MTS200's channel as the fake reports it at first: manual at 21 °C, 5–35 °C, heating, its floor protection on. */
export const MTS200_READING: ThermostatReading = {
  channel: 0,
  on: true,
  mode: 'manual',
  modes: ['heat', 'cool', 'economy', 'auto', 'manual'],
  currentTemperature: 19.5,
  targetTemperature: 21,
  heating: true,
  cooling: false,
  minTemperature: 5,
  maxTemperature: 35,
  windowOpen: false,
  overheat: { enabled: true, warning: 'ok', threshold: 33.5, temperature: 24 },
  sensor: 'internal',
};

/** A roller shutter (mrs100) that takes any position, closed at first. */
export function rollerShutter(overrides: Partial<CloudDevice> & { uuid: string }): CloudDevice {
  return cloudDevice({ name: 'Blinds', type: 'mrs100', switchable: false, capabilities: ['cover'], coverPositioning: true, ...overrides });
}

/** A garage door opener (msg100): one door on channel 0, never switchable. */
export function garageDoorOpener(overrides: Partial<CloudDevice> & { uuid: string }): CloudDevice {
  return cloudDevice({ name: 'Garage door', type: 'msg100', switchable: false, capabilities: ['garageDoor'], ...overrides });
}

/** In-memory DeviceCloud for tests: records every call, can be told to fail, and pushes events on demand. */
export class FakeDeviceCloud implements DeviceCloud {
  readonly calls: FakeCall[] = [];
  private readonly devices = new Map<string, FakeDevice>();
  private readonly listeners = new Set<(event: CloudEvent) => void>();
  private readonly failures = new Map<Method, FakeFailure[]>();
  private readonly persistentFailures = new Map<Method, FakeFailure>();
  private readonly holds: Array<() => void> = [];
  /** Doors sent moving that have not arrived yet. */
  private readonly travelling: Array<{ uuid: string; channel: number; state: GarageDoorState }> = [];
  private holding = false;
  private state: CloudSessionState = 'connected';
  private lastError: CloudStatus['lastError'] = null;
  private retryAt: string | null = null;
  /** Messages the fake announced as sent to the cloud. */
  sentCount = 0;
  /** What lights added from now on support. */
  lightFeatures: LightFeatures = ALL_LIGHT_FEATURES;
  /** The code submitMfaCode accepts. */
  acceptedMfaCode = '123456';
  /** What status() says the user must do outside the connected state. */
  action: string | null = null;
  /** What the fake reports of its token store; tests set it. */
  tokenStore: TokenStoreStatus = NO_TOKEN_STORE;

  constructor(
    devices: CloudDevice[] = [],
    readonly backend: CloudBackend = 'meross',
  ) {
    for (const d of devices) this.addDevice(d);
  }

  /** A plug, a four-channel strip, an offline plug, a plug whose command channel is down, and a sensor. */
  static withDefaults(): FakeDeviceCloud {
    return new FakeDeviceCloud([
      cloudDevice({ uuid: 'plug-1', name: 'Desk Lamp' }),
      cloudDevice({
        uuid: 'strip-1',
        name: 'Strip',
        type: 'mss425f',
        channels: ['TV', 'Speakers', 'Lamp', 'USB'].map((name, channel) => ({ channel, name })),
      }),
      cloudDevice({ uuid: 'offline-1', name: 'Garage', online: false, commandReady: false }),
      cloudDevice({ uuid: 'unready-1', name: 'Kitchen', commandReady: false }),
      cloudDevice({ uuid: 'sensor-1', name: 'Sensor', type: 'ms100', switchable: false }),
    ]);
  }

  // --- DeviceCloud ---

  /** Announces where the session stands, as the adapters do when they start. */
  async start(): Promise<void> {
    this.calls.push({ method: 'start', args: [] });
    this.emit({ type: 'session', status: this.status() });
  }

  async stop(): Promise<void> {
    this.calls.push({ method: 'stop', args: [] });
  }

  status(): CloudStatus {
    return {
      backend: this.backend,
      state: this.state,
      lastError: this.lastError,
      retryAt: this.retryAt,
      action: this.state === 'connected' ? null : this.action,
      tokenStore: this.tokenStore,
    };
  }

  /** Connects when given `acceptedMfaCode` while in needs-mfa, like the adapter. */
  async submitMfaCode(code: string): Promise<void> {
    if (this.state !== 'needs-mfa') throw new AppError('CLOUD_LOGIN_NOT_NEEDED', `The session is ${this.state}`);
    await this.enter('submitMfaCode', [code]);
    if (code !== this.acceptedMfaCode) throw new AppError('MFA_CODE_REJECTED', 'The cloud rejected the MFA code (error 1032)');
    this.setSession('connected');
  }

  async listDevices(): Promise<CloudDevice[]> {
    await this.enter('listDevices', []);
    return [...this.devices.values()].map((d) => ({ ...d.device, channels: d.device.channels.map((c) => ({ ...c })) }));
  }

  /** The fake sends no abilities read (a subclass that does says when it has). */
  abilitiesKnown(_uuid: string): boolean {
    return true;
  }

  async readChannels(uuid: string): Promise<Array<{ channel: number; on: boolean }>> {
    const device = await this.enter('readChannels', [uuid], uuid);
    return [...device.states].map(([channel, on]) => ({ channel, on }));
  }

  /** Like the adapter: refuses a device that is no switch, and announces a change as a `command` channel event. */
  async setChannel(uuid: string, channel: number, on: boolean): Promise<void> {
    const { states } = await this.enter('setChannel', [uuid, channel, on], uuid, 'switch');
    if (states.get(channel) === on) return;
    states.set(channel, on);
    this.emit({ type: 'channel', uuid, channel, on, source: 'command' });
  }

  async readGarageDoors(uuid: string): Promise<GarageDoorReading[]> {
    const { doors } = await this.enter('readGarageDoors', [uuid], uuid);
    return [...doors].map(([channel, open]) => ({ channel, state: open ? 'open' : 'closed' }));
  }

  /** Like a real opener: answers where the door goes (or already is), then moves it; `completeDoorTravel` lands it. */
  async setGarageDoor(uuid: string, channel: number, open: boolean): Promise<GarageDoorReading> {
    const { doors } = await this.enter('setGarageDoor', [uuid, channel, open], uuid);
    const moves = doors.get(channel) !== open;
    doors.set(channel, open);
    if (moves) this.travelling.push({ uuid, channel, state: open ? 'open' : 'closed' });
    const state: GarageDoorState = moves ? (open ? 'opening' : 'closing') : open ? 'open' : 'closed';
    return { channel, state };
  }

  async readCovers(uuid: string): Promise<CoverReading[]> {
    const { covers } = await this.enter('readCovers', [uuid], uuid);
    return [...covers].map(([channel, position]) => ({ channel, position, motion: 'idle' }));
  }

  /** Acknowledges; the cover "arrives" at once (a test pushes what it wants to be seen). */
  async moveCover(uuid: string, channel: number, target: number | 'stop'): Promise<void> {
    const { covers } = await this.enter('moveCover', [uuid, channel, target], uuid);
    if (target !== 'stop') covers.set(channel, target);
  }

  async readLight(uuid: string): Promise<LightReading[]> {
    const { lights } = await this.enter('readLight', [uuid], uuid);
    return [...lights.values()].map((l) => ({ ...l, supports: { ...l.supports } }));
  }

  async setLight(uuid: string, channel: number, change: LightChange): Promise<void> {
    const light = (await this.enter('setLight', [uuid, channel, change], uuid)).lights.get(channel);
    if (light) Object.assign(light, change);
  }

  /** The devices behind every hub of the fake: a valve and a sensor. */
  hubDevices: HubSubDeviceReading[] = [
    {
      id: 'valve-1',
      name: 'Bedroom valve',
      kind: 'valve',
      model: 'mts100v3',
      online: true,
      battery: 80,
      ...NO_HUB_READINGS,
      temperature: 19.5,
      on: true,
      targetTemperature: 21,
      minTemperature: 5,
      maxTemperature: 35,
    },
    {
      id: 'sensor-1',
      name: 'Cellar',
      kind: 'sensor',
      model: 'ms100',
      online: true,
      battery: 45,
      ...NO_HUB_READINGS,
      temperature: 12.3,
      humidity: 71.5,
    },
  ];

  async readHub(uuid: string): Promise<HubSubDeviceReading[]> {
    await this.enter('readHub', [uuid], uuid);
    return this.hubDevices.map((d) => ({ ...d }));
  }

  async setValve(uuid: string, id: string, change: ValveChange): Promise<void> {
    await this.enter('setValve', [uuid, id, change], uuid);
    this.hubDevices = this.hubDevices.map((d) => (d.id === id ? { ...d, ...change } : d));
  }

  /** Each thermostat's channels, made from `thermostatReading` on first use; tests change them. */
  readonly thermostats = new Map<string, ThermostatReading[]>();
  /** What thermostats added from now on report. */
  thermostatReading: ThermostatReading = MTS200_READING;

  thermostatsOf(uuid: string): ThermostatReading[] {
    let list = this.thermostats.get(uuid);
    if (!list) this.thermostats.set(uuid, (list = [{ ...this.thermostatReading, modes: [...this.thermostatReading.modes] }]));
    return list;
  }

  async readThermostats(uuid: string): Promise<ThermostatReading[]> {
    await this.enter('readThermostats', [uuid], uuid, 'thermostat');
    return this.thermostatsOf(uuid).map((t) => ({ ...t, modes: [...t.modes] }));
  }

  /** Like an MTS200: a target in auto switches to manual; answers the thermostat after the change. */
  async setThermostat(uuid: string, channel: number, change: ThermostatChange): Promise<ThermostatReading> {
    await this.enter('setThermostat', [uuid, channel, change], uuid, 'thermostat');
    const t = this.thermostatsOf(uuid).find((r) => r.channel === channel);
    if (!t) throw new AppError('CLOUD_ERROR', `Device ${uuid} answered ERROR: no thermostat channel ${channel}`);
    Object.assign(t, change);
    if (change.targetTemperature !== undefined && change.mode === undefined && t.mode === 'auto') t.mode = 'manual';
    return { ...t, modes: [...t.modes] };
  }

  /** What energy plugs measure; tests change it. */
  power: PowerReading = { power: 60.5, voltage: 231.2, current: 0.262 };
  dailyEnergy: DailyEnergy[] = [
    { date: '2026-11-22', kWh: 1.25 },
    { date: '2026-11-23', kWh: 0.8 },
  ];

  async readPower(uuid: string): Promise<PowerReading> {
    await this.enter('readPower', [uuid], uuid);
    return { ...this.power };
  }

  async readDailyEnergy(uuid: string): Promise<DailyEnergy[]> {
    await this.enter('readDailyEnergy', [uuid], uuid);
    return this.dailyEnergy.map((d) => ({ ...d }));
  }

  onEvent(listener: (event: CloudEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // --- Test controls ---

  /** The next call of `method` fails this way (queue several with several calls). */
  failNext(method: Method, failure: FakeFailure): this {
    this.failures.set(method, [...(this.failures.get(method) ?? []), failure]);
    return this;
  }

  /** Every call of `method` fails this way until `recover`. */
  failAlways(method: Method, failure: FakeFailure): this {
    this.persistentFailures.set(method, failure);
    return this;
  }

  recover(method: Method): this {
    this.persistentFailures.delete(method);
    return this;
  }

  /** setChannel calls wait until `release` (to observe serialization); returns how many are waiting. */
  holdCommands(): void {
    this.holding = true;
  }

  get heldCount(): number {
    return this.holds.length;
  }

  releaseOne(): void {
    this.holds.shift()?.();
  }

  releaseAll(): void {
    this.holding = false;
    for (const release of this.holds.splice(0)) release();
  }

  addDevice(device: CloudDevice, states: boolean[] = []): void {
    const map = new Map(device.channels.map((c, i) => [c.channel, states[i] ?? false]));
    const doors = new Map(device.capabilities.includes('garageDoor') ? device.channels.map((c) => [c.channel, false]) : []);
    const covers = new Map(device.capabilities.includes('cover') ? device.channels.map((c) => [c.channel, 0]) : []);
    const lights = new Map(
      device.capabilities.includes('light')
        ? device.channels.map((c) => [c.channel, { channel: c.channel, brightness: 100, temperature: 50, rgb: 0xffffff, supports: { ...this.lightFeatures } }])
        : [],
    );
    this.devices.set(device.uuid, { device, states: map, doors, covers, lights });
  }

  removeDevice(uuid: string): void {
    this.devices.delete(uuid);
  }

  renameDevice(uuid: string, name: string): void {
    this.assertDevice(uuid).device.name = name;
  }

  /** The state of the "hardware". */
  stateOf(uuid: string, channel: number): boolean | undefined {
    return this.devices.get(uuid)?.states.get(channel);
  }

  setState(uuid: string, channel: number, on: boolean): void {
    this.assertDevice(uuid).states.set(channel, on);
  }

  /** A press on the physical button: the hardware flips and the cloud pushes it. */
  pressButton(uuid: string, channel: number): boolean {
    const states = this.assertDevice(uuid).states;
    const on = !states.get(channel);
    states.set(channel, on);
    this.emit({ type: 'channel', uuid, channel, on, source: 'push' });
    return on;
  }

  /** The opener's own button: the door moves and the cloud pushes where it ends up. */
  pressGarageButton(uuid: string, channel: number): GarageDoorState {
    const doors = this.assertDevice(uuid).doors;
    const open = !doors.get(channel);
    doors.set(channel, open);
    const state: GarageDoorState = open ? 'open' : 'closed';
    this.emit({ type: 'garageDoor', uuid, channel, state, source: 'push' });
    return state;
  }

  /** The doors sent moving arrive, and the cloud pushes where each ends up (a real opener does so by itself). */
  completeDoorTravel(): void {
    for (const { uuid, channel, state } of this.travelling.splice(0)) this.emit({ type: 'garageDoor', uuid, channel, state, source: 'push' });
  }

  /** The device's presence changes: one `online` event, as from the adapter; its command channel (commandReady) stays as it is. */
  setOnline(uuid: string, online: boolean): void {
    this.assertDevice(uuid).device.online = online;
    this.emit({ type: 'online', uuid, online, upgrading: false });
  }

  setSession(state: CloudSessionState, extra: Partial<Pick<CloudStatus, 'lastError' | 'retryAt'>> = {}): void {
    this.state = state;
    this.lastError = extra.lastError ?? null;
    this.retryAt = extra.retryAt ?? null;
    this.emit({ type: 'session', status: this.status() });
  }

  emit(event: CloudEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  callsOf(method: Method): unknown[][] {
    return this.calls.filter((c) => c.method === method).map((c) => c.args);
  }

  /**
   * Records the call and announces the message it sends, failing as scripted. Like the adapter, nothing is sent when
   * the session is down or when the device (given for device calls) is unknown, cannot be reached or lacks `capability`.
   */
  private async enter(method: Method, args: unknown[]): Promise<void>;
  private async enter(method: Method, args: unknown[], uuid: string, capability?: Capability): Promise<FakeDevice>;
  private async enter(method: Method, args: unknown[], uuid?: string, capability?: Capability): Promise<FakeDevice | void> {
    this.calls.push({ method, args });
    const failure = this.failures.get(method)?.shift() ?? this.persistentFailures.get(method);
    if (failure === 'unavailable') return fail(failure);
    const device = uuid === undefined ? undefined : this.assertReachable(uuid, capability);
    // A timeout or an error answer means the message went out.
    this.sentCount += 1;
    this.emit({ type: 'sent', via: device ? 'mqtt' : 'api', what: method });
    if (failure) await fail(failure);
    if (method === 'setChannel' && this.holding) await new Promise<void>((resolve) => this.holds.push(resolve));
    return device;
  }

  private assertDevice(uuid: string): FakeDevice {
    const device = this.devices.get(uuid);
    if (!device) throw new AppError('DEVICE_NOT_FOUND', `Device ${uuid} not found`);
    return device;
  }

  /** The adapter's checks before a device message, with its code (DEVICE_NOT_CONTROLLABLE, the reason in details). */
  private assertReachable(uuid: string, capability: Capability | undefined): FakeDevice {
    const fake = this.assertDevice(uuid);
    const reason = unreachable(fake.device, capability);
    if (reason) throw new AppError('DEVICE_NOT_CONTROLLABLE', undefined, { details: [{ path: 'device', message: `Device ${uuid} ${reason}` }] });
    return fake;
  }
}

/** Why the adapter would send the device nothing, or null when it would. */
function unreachable(device: CloudDevice, capability: Capability | undefined): string | null {
  if (device.upgrading) return 'is installing a firmware update';
  if (!device.online) return 'is offline';
  if (!device.commandReady) return 'has no command channel (MQTT) connected';
  if (capability && !device.capabilities.includes(capability)) return `declares no ${capability}`;
  return null;
}

function fail(failure: FakeFailure): Promise<never> {
  if (failure === 'timeout') return new Promise<never>(() => undefined);
  if (failure === 'cloud-error') {
    return Promise.reject(new AppError('CLOUD_ERROR', 'The cloud answered with error 5000: device busy'));
  }
  if (failure === 'unavailable') {
    return Promise.reject(new AppError('CLOUD_UNAVAILABLE', 'Cloud session is backing off', { retryAfterSeconds: 42 }));
  }
  return Promise.reject(failure);
}
