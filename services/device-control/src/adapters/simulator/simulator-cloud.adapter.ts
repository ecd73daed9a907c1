import { AppError, systemClock, type Clock, type Timer } from '@homeops/common';
import { NO_TOKEN_STORE, type CloudDevice, type CloudEvent, type CloudStatus, type DeviceCloud } from '../../domain/device-cloud.js';
import { type CoverReading } from '../../families/cover/domain/cover.types.js';
import { type DailyEnergy, type PowerReading } from '../../families/energy/domain/energy.types.js';
import { type GarageDoorReading } from '../../families/garage-door/domain/garage-door.types.js';
import { type HubSubDeviceReading, type ValveChange } from '../../families/hub/domain/hub.types.js';
import { type LightChange, type LightReading } from '../../families/light/domain/light.types.js';
import { defaultSimulatedDevices, extraSimulatedDevices, type SimulatedDevice } from './simulated-devices.js';

/** How the simulated account is made up and how slow it answers. */
export interface SimulatorOptions {
  /** Devices beyond the three quick-start ones. */
  extraDevices?: number;
  /** Replaces the quick-start devices entirely (tests). */
  devices?: SimulatedDevice[];
  /** Simulated round trip of each cloud call. */
  latencyMs?: number;
  /** How long a garage door takes to open or close, and a cover a full run (default 3 s). */
  doorTravelMs?: number;
  /** Times the round trips, door and cover runs, and dates the energy history (default the system clock). */
  clock?: Clock;
}

function copyDevice(device: CloudDevice): CloudDevice {
  const copy = { ...device, capabilities: [...device.capabilities], channels: device.channels.map((c) => ({ ...c })) };
  if (device.link) copy.link = { ...device.link };
  return copy;
}

/**
 * An in-memory account that behaves like the Meross cloud: commands, pushes, presence and list changes. Devices with
 * a LAN link answer "over the LAN": their messages are announced as `lan` (free of the budget), and they stay
 * reachable while the session is down.
 */
export class SimulatorCloud implements DeviceCloud {
  readonly backend = 'simulator' as const;
  readonly lanControl = true;
  private readonly devices = new Map<string, SimulatedDevice>();
  private readonly listeners = new Set<(event: CloudEvent) => void>();
  private readonly latencyMs: number;
  private readonly doorTravelMs: number;
  private readonly moving = new Set<Timer>();
  private readonly clock: Clock;
  private state: CloudStatus['state'] = 'connecting';

  constructor(options: SimulatorOptions = {}) {
    this.latencyMs = options.latencyMs ?? 0;
    this.doorTravelMs = options.doorTravelMs ?? 3_000;
    this.clock = options.clock ?? systemClock;
    const devices = options.devices ?? defaultSimulatedDevices();
    for (const d of [...devices, ...extraSimulatedDevices(options.extraDevices ?? 0)]) this.devices.set(d.device.uuid, d);
  }

  async start(): Promise<void> {
    this.setState('connected');
  }

  async stop(): Promise<void> {
    for (const timer of this.moving) timer.cancel();
    this.moving.clear();
    this.setState('connecting');
  }

  status(): CloudStatus {
    return { backend: this.backend, state: this.state, lastError: null, retryAt: null, action: null, tokenStore: NO_TOKEN_STORE };
  }

  /** The simulator has no login. */
  async submitMfaCode(): Promise<void> {
    throw new AppError('CLOUD_LOGIN_NOT_NEEDED', 'The simulator has no account to log in to');
  }

  async listDevices(): Promise<CloudDevice[]> {
    await this.roundTrip();
    this.assertSession();
    this.emit({ type: 'sent', via: 'api', what: 'device list' });
    return [...this.devices.values()].map((d) => copyDevice(d.device));
  }

  /** Simulated devices send no abilities read: every call costs only its own messages. */
  abilitiesKnown(): boolean {
    return true;
  }

  async readChannels(uuid: string): Promise<Array<{ channel: number; on: boolean }>> {
    await this.roundTrip();
    const { states } = this.assertReachable(uuid);
    this.announceSent(uuid, 'state read');
    return [...states].map(([channel, on]) => ({ channel, on }));
  }

  async readGarageDoors(uuid: string): Promise<GarageDoorReading[]> {
    await this.roundTrip();
    const { doors } = this.assertReachable(uuid);
    this.announceSent(uuid, 'garage door read');
    return [...doors].map(([channel, open]) => ({ channel, state: open ? 'open' : 'closed' }));
  }

  /** Answers at once, like an opener; the door arrives after `doorTravelMs` and that is pushed. */
  async setGarageDoor(uuid: string, channel: number, open: boolean): Promise<GarageDoorReading> {
    await this.roundTrip();
    const { doors } = this.assertReachable(uuid);
    this.announceSent(uuid, 'garage door command');
    if (!doors.has(channel)) throw new AppError('CLOUD_ERROR', `Device ${uuid} answered ERROR: no door ${channel}`);
    if (doors.get(channel) === open) return { channel, state: open ? 'open' : 'closed' };
    doors.set(channel, open);
    const timer = this.clock.setTimer(() => {
      this.moving.delete(timer);
      this.emit({ type: 'garageDoor', uuid, channel, state: open ? 'open' : 'closed', source: 'push' });
    }, this.doorTravelMs);
    this.moving.add(timer);
    return { channel, state: open ? 'opening' : 'closing' };
  }

  async readCovers(uuid: string): Promise<CoverReading[]> {
    await this.roundTrip();
    const { covers } = this.assertReachable(uuid);
    this.announceSent(uuid, 'cover position read');
    this.announceSent(uuid, 'cover state read');
    return [...covers].map(([channel, position]) => ({ channel, position, motion: 'idle' }));
  }

  /** Acknowledges at once; the cover arrives after its share of a full run and that is pushed (a stop stays put). */
  async moveCover(uuid: string, channel: number, target: number | 'stop'): Promise<void> {
    await this.roundTrip();
    const { covers } = this.assertReachable(uuid);
    this.announceSent(uuid, 'cover command');
    const from = covers.get(channel);
    if (from === undefined) throw new AppError('CLOUD_ERROR', `Device ${uuid} answered ERROR: no cover channel ${channel}`);
    if (target === 'stop' || target === from) {
      setImmediate(() => this.emit({ type: 'cover', uuid, channel, position: from, motion: 'idle', source: 'push' }));
      return;
    }
    covers.set(channel, target);
    const timer = this.clock.setTimer(
      () => {
        this.moving.delete(timer);
        this.emit({ type: 'cover', uuid, channel, position: target, motion: 'idle', source: 'push' });
      },
      (this.doorTravelMs * Math.abs(target - from)) / 100,
    );
    this.moving.add(timer);
  }

  async readLight(uuid: string): Promise<LightReading[]> {
    await this.roundTrip();
    const { lights } = this.assertReachable(uuid);
    this.announceSent(uuid, 'light read');
    return [...lights.values()].map((l) => ({ ...l, supports: { ...l.supports } }));
  }

  async setLight(uuid: string, channel: number, change: LightChange): Promise<void> {
    await this.roundTrip();
    const { lights } = this.assertReachable(uuid);
    this.announceSent(uuid, 'light command');
    const light = lights.get(channel);
    if (!light) throw new AppError('CLOUD_ERROR', `Device ${uuid} answered ERROR: no light channel ${channel}`);
    Object.assign(light, change);
    // Like a real bulb, it shows what was set last: a colour, or a white of some temperature.
    if (change.rgb !== undefined) light.mode = 'rgb';
    else if (change.temperature !== undefined) light.mode = 'temperature';
  }

  /** A lamp's draw while on (60 W) or in standby (0.4 W) at 230 V, with a little noise. */
  async readPower(uuid: string): Promise<PowerReading> {
    await this.roundTrip();
    const { states, device } = this.assertReachable(uuid);
    this.announceSent(uuid, 'power read');
    if (!device.capabilities.includes('energy')) throw new AppError('DEVICE_NOT_CONTROLLABLE', `Device ${uuid} measures no energy`);
    const voltage = Math.round((229 + Math.random() * 3) * 10) / 10;
    const power = states.get(0) ? Math.round((59 + Math.random() * 2) * 10) / 10 : 0.4;
    return { power, voltage, current: Math.round((power / voltage) * 1000) / 1000 };
  }

  /** The last seven days, ending today. */
  async readDailyEnergy(uuid: string): Promise<DailyEnergy[]> {
    await this.roundTrip();
    const { device } = this.assertReachable(uuid);
    this.announceSent(uuid, 'energy read');
    if (!device.capabilities.includes('energy')) throw new AppError('DEVICE_NOT_CONTROLLABLE', `Device ${uuid} measures no energy`);
    return Array.from({ length: 7 }, (_, i) => ({
      date: new Date(this.clock.now() - (6 - i) * 86_400_000).toISOString().slice(0, 10),
      kWh: Math.round((0.3 + ((i * 37) % 10) / 10) * 100) / 100,
    }));
  }

  async readHub(uuid: string): Promise<HubSubDeviceReading[]> {
    await this.roundTrip();
    const simulated = this.assertReachable(uuid);
    for (const what of ['valves read', 'sensors read', 'batteries read']) this.announceSent(uuid, what);
    return simulated.subdevices.map((d) => ({ ...d }));
  }

  async setValve(uuid: string, id: string, change: ValveChange): Promise<void> {
    await this.roundTrip();
    const simulated = this.assertReachable(uuid);
    this.announceSent(uuid, 'valve command');
    const valve = simulated.subdevices.find((d) => d.id === id && d.kind === 'valve');
    if (!valve) throw new AppError('CLOUD_ERROR', `Hub ${uuid} answered ERROR: no valve ${id}`);
    Object.assign(valve, change);
  }

  async setChannel(uuid: string, channel: number, on: boolean): Promise<void> {
    await this.roundTrip();
    const { states, device } = this.assertReachable(uuid);
    if (!device.capabilities.includes('switch')) throw new AppError('DEVICE_NOT_CONTROLLABLE', `Device ${uuid} is not a switch`);
    this.announceSent(uuid, 'switch command');
    if (!states.has(channel)) throw new AppError('CLOUD_ERROR', `Device ${uuid} answered ERROR: no channel ${channel}`);
    states.set(channel, on);
    this.emit({ type: 'channel', uuid, channel, on, source: 'command' });
  }

  onEvent(listener: (event: CloudEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Someone pressed the device's button (or used the vendor app): the state flips and the cloud pushes it. */
  pressButton(uuid: string, channel = 0): boolean {
    const states = this.assertKnown(uuid).states;
    const on = !states.get(channel);
    states.set(channel, on);
    this.emit({ type: 'channel', uuid, channel, on, source: 'push' });
    return on;
  }

  /** The device lost or regained its connection to the cloud. */
  setOnline(uuid: string, online: boolean): void {
    const { device } = this.assertKnown(uuid);
    device.online = online;
    // As through the real library: presence is one `online` event; commandReady is the cloud connection's, not the
    // device's, and stays. Only a LAN link changes the description.
    if (device.link) {
      device.link = { ...device.link, transport: online ? 'lan' : 'unreachable' };
      this.emit({ type: 'device', device: copyDevice(device) });
    }
    this.emit({ type: 'online', uuid, online });
  }

  /** Account changes that the service sees on its next sync. */
  addDevice(device: SimulatedDevice): void {
    this.devices.set(device.device.uuid, device);
  }

  removeDevice(uuid: string): void {
    this.devices.delete(uuid);
  }

  renameDevice(uuid: string, name: string): void {
    this.assertKnown(uuid).device.name = name;
  }

  /** The state the simulated hardware is in (what a test or demo would see on the device itself). */
  channelState(uuid: string, channel: number): boolean | undefined {
    return this.devices.get(uuid)?.states.get(channel);
  }

  private assertKnown(uuid: string): SimulatedDevice {
    const device = this.devices.get(uuid);
    if (!device) throw new AppError('DEVICE_NOT_FOUND', `Device ${uuid} not found`);
    return device;
  }

  private assertSession(): void {
    if (this.state !== 'connected') {
      throw new AppError('CLOUD_UNAVAILABLE', 'The simulated cloud session is not started', { retryAfterSeconds: 1 });
    }
  }

  private assertReachable(uuid: string): SimulatedDevice {
    const device = this.assertKnown(uuid);
    // A device on the LAN answers whatever the cloud session does.
    if (device.device.link?.transport !== 'lan') this.assertSession();
    if (!device.device.online) throw new AppError('DEVICE_NOT_CONTROLLABLE');
    return device;
  }

  private setState(state: CloudStatus['state']): void {
    this.state = state;
    this.emit({ type: 'session', status: this.status() });
  }

  /** One message to a device: over the LAN where the device has a LAN link, else through the cloud. */
  private announceSent(uuid: string, what: string): void {
    this.emit({ type: 'sent', via: this.devices.get(uuid)?.device.link?.transport === 'lan' ? 'lan' : 'mqtt', what });
  }

  private emit(event: CloudEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  private roundTrip(): Promise<void> {
    if (this.latencyMs <= 0) return Promise.resolve();
    return new Promise((resolve) => this.clock.setTimer(resolve, this.latencyMs));
  }
}
