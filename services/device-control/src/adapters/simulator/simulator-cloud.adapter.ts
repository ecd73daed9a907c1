import { AppError, systemClock, type Clock, type Timer } from '@homeops/common';
import { NO_TOKEN_STORE, type CloudDevice, type CloudEvent, type CloudStatus, type DeviceCloud, type FamilyClouds } from '../../domain/device-cloud.js';
import type { AdapterFamily, FamilyPorts } from '../../families/adapter-family.js';
import { ADAPTER_FAMILIES } from '../../families/adapters.js';
import { defaultSimulatedDevices, extraSimulatedDevices, type SimulatedDevice } from './simulated-devices.js';
import type { SimulatorAccess } from './simulator-family.js';

/** How the simulated account is made up and how slow it answers. */
export interface SimulatorOptions {
  /** Devices beyond the quick-start ones. */
  extraDevices?: number;
  /** Replaces the quick-start devices entirely (tests). */
  devices?: SimulatedDevice[];
  /** Simulated round trip of each cloud call. */
  latencyMs?: number;
  /** How long a moving part (a door, a shutter) takes for a full run (default 3 s). */
  doorTravelMs?: number;
  /** Times the round trips and the runs of moving parts, and dates the readings (default the system clock). */
  clock?: Clock;
  /** The device families (their devices and simulator behaviour); default: every registered family. */
  families?: readonly AdapterFamily[];
}

function copyDevice(device: CloudDevice): CloudDevice {
  const copy = { ...device, capabilities: [...device.capabilities], channels: device.channels.map((c) => ({ ...c })) };
  if (device.link) copy.link = { ...device.link };
  return copy;
}

/**
 * An in-memory account that behaves like the Meross cloud: commands, pushes, presence and list changes. Devices with
 * a LAN link answer "over the LAN": their messages are announced as `lan` (free of the budget), and they stay
 * reachable while the session is down. The device families' reads and commands are their simulator parts' ports
 * (src/families/<family>/adapters), joined onto this object.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- the families' ports are assigned in the constructor
export interface SimulatorCloud extends FamilyClouds {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
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
  private readonly ports: FamilyPorts;

  constructor(options: SimulatorOptions = {}) {
    this.latencyMs = options.latencyMs ?? 0;
    this.doorTravelMs = options.doorTravelMs ?? 3_000;
    this.clock = options.clock ?? systemClock;
    const families = options.families ?? ADAPTER_FAMILIES;
    const devices = options.devices ?? defaultSimulatedDevices(families);
    for (const d of [...devices, ...extraSimulatedDevices(options.extraDevices ?? 0, families)]) this.devices.set(d.device.uuid, d);
    const access: SimulatorAccess = {
      clock: this.clock,
      travelMs: this.doorTravelMs,
      roundTrip: () => this.roundTrip(),
      reachable: (uuid) => this.assertReachable(uuid),
      announceSent: (uuid, what) => this.announceSent(uuid, what),
      emit: (event) => this.emit(event),
      later: (run, ms) => {
        const timer = this.clock.setTimer(() => {
          this.moving.delete(timer);
          run();
        }, ms);
        this.moving.add(timer);
      },
    };
    this.ports = Object.assign({}, ...families.flatMap((f) => (f.simulator ? [f.simulator.port(access)] : []))) as FamilyPorts;
    Object.assign(this, this.ports);
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

  readChannels(uuid: string): Promise<Array<{ channel: number; on: boolean }>> {
    return this.ports.readChannels(uuid);
  }

  setChannel(uuid: string, channel: number, on: boolean): Promise<void> {
    return this.ports.setChannel(uuid, channel, on);
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
