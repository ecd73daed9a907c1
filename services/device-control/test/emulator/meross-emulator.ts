import { randomBytes } from 'node:crypto';
import { EmulatedDevice, type EmulatedDeviceSpec, type EmulatedSubDevice } from './emulated-device.js';
import { isSafety, safetyPush, type SafetyKind } from './hub-sensors.js';
import { EmulatorApi, type EmulatedAccount } from './emulator-api.js';
import { createServer } from 'node:net';
import { EmulatorBroker, MQTT_PORT } from './emulator-broker.js';
import { EmulatorLan, type LanRequest } from './emulator-lan.js';
import type { TestPki } from './pki.js';
import type { ThermostatPart } from './emulated-thermostat.js';

export type { EmulatedAccount } from './emulator-api.js';
export type { EmulatedDeviceSpec } from './emulated-device.js';
export type { LanReachability, LanRequest } from './emulator-lan.js';

/** What a device received on each transport: requests over its LAN /config, and requests that reached the cloud for it. */
export interface DeviceMessageCounts {
  lan: number;
  cloud: number;
}

/** A fresh account with secrets distinctive enough to be searched for in captured output. */
export function createAccount(overrides: Partial<EmulatedAccount> = {}): EmulatedAccount {
  return {
    email: 'owner@example.test',
    password: `pw-${randomBytes(9).toString('hex')}`,
    userId: String(100_000 + Math.floor(Math.random() * 800_000)),
    key: `key${randomBytes(12).toString('hex')}`,
    ...overrides,
  };
}

/** A plug, a four-outlet strip, an old Toggle-only plug and a hub: the shapes the adapter must handle. */
export function standardDevices(): EmulatedDeviceSpec[] {
  return [
    { uuid: 'plug0000000000000000000000000001', name: 'Desk lamp', type: 'mss310' },
    { uuid: 'strip000000000000000000000000002', name: 'Power strip', type: 'mss425f', outlets: ['Monitor', 'Printer', 'Router', 'USB'] },
    { uuid: 'oldplug0000000000000000000000003', name: 'Old plug', type: 'mss110', protocol: 'toggle' },
    { uuid: 'hub00000000000000000000000000004', name: 'Hub', type: 'msh300', protocol: 'none' },
  ];
}

/**
 * A Meross cloud for tests on loopback addresses (127.0.0.x): HTTPS API on a free port and MQTTS on 2001, which
 * meross-cloud hard-codes, so every broker takes its own address; `brokers: 2` adds a second one, as accounts whose
 * devices sit on different brokers have (a device's `broker` picks its own). Each device also answers on the LAN:
 * POST /config on its own 127.0.x.y (`device(uuid).lanAddress`, System.All's innerIp) and the shared `lanPort`.
 */
export class MerossEmulator {
  private constructor(
    readonly devices: Map<string, EmulatedDevice>,
    readonly host: string,
    readonly account: EmulatedAccount,
    readonly api: EmulatorApi,
    readonly brokers: EmulatorBroker[],
    readonly lan: EmulatorLan,
    private readonly tls: { cert: string; key: string },
  ) {}

  static async start(options: { pki: TestPki; account: EmulatedAccount; devices: EmulatedDeviceSpec[]; brokers?: number }): Promise<MerossEmulator> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await MerossEmulator.startOnce(options);
      } catch (err) {
        // Another test file took the address between the check and the listen: pick others.
        if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 5) throw err;
      }
    }
  }

  private static async startOnce(options: {
    pki: TestPki;
    account: EmulatedAccount;
    devices: EmulatedDeviceSpec[];
    brokers?: number;
  }): Promise<MerossEmulator> {
    const devices = new Map(options.devices.map((spec) => [spec.uuid, new EmulatedDevice(spec)]));
    const hosts = await freeLoopbackHosts(options.brokers ?? 1);
    const tls = options.pki.issue(hosts);
    const brokers: EmulatorBroker[] = [];
    const api = new EmulatorApi(options.account, () => [...devices.values()], hosts[0]!, hosts);
    let lan: EmulatorLan | undefined;
    try {
      for (const [index, host] of hosts.entries()) {
        const broker = new EmulatorBroker(host, tls, options.account, devices, index);
        await broker.listen();
        brokers.push(broker);
      }
      lan = await EmulatorLan.start(devices.values(), (device) => brokers[device.broker]!.contextOf(device));
      await api.listen(tls);
    } catch (err) {
      await Promise.all([...brokers.map((b) => b.close()), lan?.close()]);
      throw err;
    }
    return new MerossEmulator(devices, hosts[0]!, options.account, api, brokers, lan, tls);
  }

  /** The first broker (the one the API hands out as the account's mqttDomain). */
  get broker(): EmulatorBroker {
    return this.brokers[0]!;
  }

  get apiUrl(): string {
    return this.api.url;
  }

  /** The port every device's /config listens on (devices on a real LAN use 80; a test cannot bind it). */
  get lanPort(): number {
    return this.lan.port;
  }

  /** `ip:port` of the device's /config, for an address pinned in the service's configuration. */
  lanHost(uuid: string): string {
    return `${this.device(uuid).lanAddress}:${this.lanPort}`;
  }

  device(uuid: string): EmulatedDevice {
    const device = this.devices.get(uuid);
    if (!device) throw new Error(`emulator has no device ${uuid}`);
    return device;
  }

  /** Someone pressed the device's button: the channel flips and its broker pushes the new state. */
  pressButton(uuid: string, channel: number): void {
    const device = this.device(uuid);
    device.set(channel, !device.isOn(channel));
    if (device.protocol === 'toggle') {
      this.brokerOf(device).push(uuid, 'Appliance.Control.Toggle', { toggle: { onoff: device.isOn(0) ? 1 : 0 } });
      return;
    }
    const changed = channel === 0 ? device.channelNumbers() : [channel];
    const togglex = changed.map((c) => ({ channel: c, onoff: device.isOn(c) ? 1 : 0, lmTime: Math.floor(Date.now() / 1000) }));
    this.brokerOf(device).push(uuid, 'Appliance.Control.ToggleX', { togglex });
  }

  /** The opener's own button (or the vendor app): the door moves and its broker pushes where it ends up. */
  pressGarageButton(uuid: string, channel = 0): boolean {
    const device = this.device(uuid);
    const open = !device.isOpen(channel);
    device.setDoor(channel, open);
    this.brokerOf(device).push(uuid, 'Appliance.GarageDoor.State', { state: device.doorStates().filter((d) => d.channel === channel) });
    return open;
  }

  /** Someone turns a valve behind a hub by hand: the hub pushes Appliance.Hub.ToggleX. */
  pressValve(hubUuid: string, id: string): boolean {
    const hub = this.device(hubUuid);
    const valve = hub.hubDevices.find((d) => d.id === id);
    if (!valve) throw new Error(`no valve ${id}`);
    valve.onoff = valve.onoff === 1 ? 0 : 1;
    this.brokerOf(hub).push(hubUuid, 'Appliance.Hub.ToggleX', { togglex: [{ id, onoff: valve.onoff }] });
    return valve.onoff === 1;
  }

  /** Someone picks another mode for a valve in the app or at the valve (0 custom, 3 schedule…): the hub pushes Appliance.Hub.Mts100.Mode. */
  setValveMode(hubUuid: string, id: string, mode: number): void {
    const hub = this.device(hubUuid);
    const valve = hub.hubDevices.find((d) => d.id === id);
    if (!valve) throw new Error(`no valve ${id}`);
    valve.mode = mode;
    this.brokerOf(hub).push(hubUuid, 'Appliance.Hub.Mts100.Mode', { mode: [{ id, state: mode }] });
  }

  /** A change at a thermostat (its buttons, its schedule, the room warming up): it pushes that part's entry. */
  changeThermostat(uuid: string, fields: Record<string, number>, part?: ThermostatPart): void {
    const device = this.device(uuid);
    if (!device.thermostat) throw new Error(`${uuid} is no thermostat`);
    const { namespace, payload } = device.thermostat.change(fields, part);
    this.brokerOf(device).push(uuid, namespace, payload);
  }

  /** Water reaches (or leaves) a leak sensor behind a hub: the hub pushes Appliance.Hub.Sensor.WaterLeak. */
  setLeak(hubUuid: string, id: string, wet: boolean): void {
    this.changeSafety(hubUuid, id, 'leak', (d) => (d.leak = wet ? 1 : 0));
  }

  /** A smoke alarm's status changes (GS559 codes: 170 clear, 23 test, 24 heat, 25 smoke, 26/27 muted, 17–22 errors). */
  setSmoke(hubUuid: string, id: string, status: number): void {
    this.changeSafety(hubUuid, id, 'smoke', (d) => (d.smokeStatus = status));
  }

  /** A door or window with a contact sensor opens or closes: the hub pushes Appliance.Hub.Sensor.DoorWindow. */
  setContact(hubUuid: string, id: string, open: boolean): void {
    this.changeSafety(hubUuid, id, 'contact', (d) => (d.doorStatus = open ? 1 : 0));
  }

  private changeSafety(hubUuid: string, id: string, kind: SafetyKind, change: (d: EmulatedSubDevice) => void): void {
    const hub = this.device(hubUuid);
    const sensor = hub.hubDevices.find((d) => d.id === id);
    if (!sensor || sensor.kind !== kind || !isSafety(sensor)) throw new Error(`no ${kind} sensor ${id}`);
    change(sensor);
    const { namespace, payload } = safetyPush(sensor);
    this.brokerOf(hub).push(hubUuid, namespace, payload);
  }

  /**
   * The device answers on the LAN (true), refuses connections there (false: nothing listens on its address) or takes
   * them and never answers ('hang'); the cloud side is untouched.
   */
  async setLanReachable(uuid: string, reachable: boolean | 'hang'): Promise<void> {
    await this.lan.setReachability(uuid, reachable === 'hang' ? 'hang' : reachable ? 'up' : 'refused');
  }

  /**
   * The device drops off (or rejoins) its cloud broker, the LAN untouched: requests through the cloud reach the
   * cloud (and count there) but not the device, its pushes reach nobody, the device list and the cloud's
   * Appliance.System.Online push say it is offline, and its own System.All says it has no cloud connection.
   */
  setCloudReachable(uuid: string, reachable: boolean): void {
    const device = this.device(uuid);
    device.cloudConnected = reachable;
    this.brokerOf(device).pushOnline(uuid, device.onlineStatus);
  }

  /** The device gets another LAN address (a new DHCP lease); the old one refuses connections. Returns the new one. */
  moveLan(uuid: string): Promise<string> {
    this.device(uuid);
    return this.lan.move(uuid);
  }

  /** A lock-out: every API call is answered with this code (1035 locked, 1301 too many tokens…) until `cloudUp()`. */
  lockOut(code: number): void {
    this.api.lockedOut = code;
  }

  /** The whole cloud goes away: the API and every broker refuse connections, open ones are dropped. The LAN stays. */
  async cloudDown(): Promise<void> {
    await Promise.all([this.api.close(), ...this.brokers.map((b) => b.close())]);
  }

  /** The cloud is back, on the same addresses and ports, and no longer locked out. */
  async cloudUp(): Promise<void> {
    this.api.lockedOut = null;
    if (!this.api.listening) await this.api.listen(this.tls);
    for (const broker of this.brokers) if (!broker.running) await broker.listen();
  }

  /** The device loses (or regains) its connection; its broker pushes Appliance.System.Online. */
  setOnline(uuid: string, online: boolean): void {
    const device = this.device(uuid);
    device.online = online;
    this.brokerOf(device).push(uuid, 'Appliance.System.Online', { online: { status: device.onlineStatus } });
  }

  /** The device starts (or finishes) installing firmware: onlineStatus 3 in devList and in a push. */
  setUpgrading(uuid: string, upgrading: boolean): void {
    const device = this.device(uuid);
    device.upgrading = upgrading;
    this.brokerOf(device).push(uuid, 'Appliance.System.Online', { online: { status: device.onlineStatus } });
  }

  /**
   * What an integration has sent so far: API calls, requests to devices through the cloud, broker connection
   * attempts (the cloud's messages), and requests to devices over the LAN (never the cloud's).
   */
  messageCounts(): { api: number; mqttRequests: number; mqttConnections: number; lanRequests: number } {
    return {
      api: this.api.calls.total,
      mqttRequests: this.brokers.reduce((n, b) => n + b.received.length, 0),
      mqttConnections: this.brokers.reduce((n, b) => n + b.attempts, 0),
      lanRequests: this.lan.received.length,
    };
  }

  /** Requests one device received over the LAN and through the cloud. */
  messagesOf(uuid: string): DeviceMessageCounts {
    return { lan: this.lan.requestsOf(uuid).length, cloud: this.brokers.reduce((n, b) => n + b.received.filter((r) => r.uuid === uuid).length, 0) };
  }

  /** Adds a device to the account (in the next device list) and puts it on the LAN. */
  async addDevice(spec: EmulatedDeviceSpec): Promise<EmulatedDevice> {
    const device = new EmulatedDevice(spec);
    this.devices.set(spec.uuid, device);
    await this.lan.add(device);
    return device;
  }

  async removeDevice(uuid: string): Promise<void> {
    this.devices.delete(uuid);
    await this.lan.remove(uuid);
  }

  /** Requests the devices received through the cloud with a given namespace (and method), on every broker. */
  requests(namespace: string, method?: string) {
    return this.brokers.flatMap((b) => b.received).filter((r) => r.namespace === namespace && (method === undefined || r.method === method));
  }

  /** Requests the devices received over the LAN, with a given namespace (and method) when given. */
  lanRequests(namespace?: string, method?: string): LanRequest[] {
    return this.lan.received.filter((r) => (namespace === undefined || r.namespace === namespace) && (method === undefined || r.method === method));
  }

  async restartBroker(downMs: number, index = 0): Promise<void> {
    const broker = this.brokers[index]!;
    await broker.close();
    await new Promise((resolve) => setTimeout(resolve, downMs));
    await broker.listen();
  }

  async stop(): Promise<void> {
    await Promise.all([...this.brokers.map((b) => b.close()), this.api.close(), this.lan.close()]);
  }

  private brokerOf(device: EmulatedDevice): EmulatorBroker {
    return this.brokers[device.broker]!;
  }
}

/**
 * Each vitest worker draws its brokers' addresses from its own slice of 127.0.0.2–251: a broker that restarts (or a
 * cloud that comes back) listens again on its address, and a file in another worker must not have taken it meanwhile.
 */
function brokerAddressSlice(): { first: number; size: number } {
  const workers = 4;
  const worker = (Number(process.env.VITEST_POOL_ID ?? 1) - 1) % workers;
  const size = Math.floor(250 / workers);
  return { first: 2 + worker * size, size };
}

/** `count` loopback addresses whose port 2001 is free (each broker needs its own). */
async function freeLoopbackHosts(count: number): Promise<string[]> {
  const hosts: string[] = [];
  const slice = brokerAddressSlice();
  for (let attempt = 0; hosts.length < count && attempt < 40; attempt += 1) {
    const host = `127.0.0.${slice.first + Math.floor(Math.random() * slice.size)}`;
    if (!hosts.includes(host) && (await isPortFree(host, MQTT_PORT))) hosts.push(host);
  }
  if (hosts.length < count) throw new Error('no free loopback address with port 2001');
  return hosts;
}

function isPortFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}
