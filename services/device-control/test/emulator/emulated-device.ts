import { md5 } from './emulator-api.js';
import { isSafety, SAFETY_ABILITIES, type SafetyKind } from './hub-sensors.js';
import { lanEncryptionKey } from './lan-crypto.js';
import { EmulatedThermostat, type ThermostatModel } from './emulated-thermostat.js';

/** How a test describes one device of the emulated account. */
export interface EmulatedDeviceSpec {
  uuid: string;
  name: string;
  type: string;
  /** Channel names after channel 0; empty for a single-channel plug. */
  outlets?: string[];
  /** togglex (most devices), toggle (old single-channel plugs) or none (e.g. a hub). */
  protocol?: 'togglex' | 'toggle' | 'none';
  online?: boolean;
  firmware?: string;
  /** Index of the MQTT broker the device is connected to (default 0). */
  broker?: number;
  /**
   * A garage door opener (msg100): declares Appliance.GarageDoor.State, and also ToggleX and a togglex digest, as
   * some openers do, so a test proves it is never switched.
   */
  garageDoor?: boolean;
  /** A roller shutter (mrs100): Appliance.RollerShutter.*, and ToggleX too, as real ones declare it. */
  cover?: boolean;
  /** A light (msl430): Appliance.Control.Light with these capacity bits (1 RGB, 2 temperature, 4 luminance). */
  lightCapacity?: number;
  /** A hub (msh300, protocol none): the valves and sensors behind it (leak, smoke, contact: hub-sensors.ts). */
  hubDevices?: Array<{ id: string; name: string; kind: EmulatedSubDevice['kind'] }>;
  /**
   * Newer firmware: declares Appliance.Encrypt.ECDHE and takes LAN requests only encrypted (AES-256-CBC with a key
   * from its uuid, the account key and its MAC, as meross_lan's merossclient does); a plain one but the ability read
   * gets its connection reset.
   */
  encryption?: boolean;
  /** Appliance.Control.Multiple's maxCmdNum; false: not declared. Default 5, none for old Toggle-only plugs. */
  multiple?: number | false;
  /** A thermostat (protocol none): Appliance.Control.Thermostat.Mode (mts200b) or .ModeB (mts960). */
  thermostat?: ThermostatModel;
  /**
   * An energy plug's clock and ConsumptionX ring buffer, as a test writes them (any order, as the plugs keep them).
   * Default: Europe/Berlin without timeRule, and the last three days, each last updated this time of day.
   */
  energyLog?: EnergyLog;
}

/** A plug's System.All `time` (its zone and timeRule) and its ConsumptionX entries. */
export interface EnergyLog {
  timezone: string;
  timeRule: Array<[utcStart: number, offsetSeconds: number, isDst: number]>;
  consumptionx: Array<{ date: string; time: number; value: number }>;
}

/** A valve or sensor behind an emulated hub, in the hub's units (tenths of °C and %). */
export interface EmulatedSubDevice {
  id: string;
  name: string;
  kind: 'valve' | 'sensor' | SafetyKind;
  online: boolean;
  battery: number;
  onoff: 0 | 1;
  room: number;
  custom: number;
  mode: number;
  humidity: number;
  /** Leak sensors: latestWaterLeak. */
  leak: 0 | 1;
  /** Smoke alarms: the GS559 status code (170 all clear). */
  smokeStatus: number;
  /** Door/window sensors: 1 open. */
  doorStatus: 0 | 1;
}

const SYSTEM_ABILITIES = ['Appliance.System.All', 'Appliance.System.Ability', 'Appliance.System.Online', 'Appliance.System.Report', 'Appliance.Config.Key'];

/** One emulated device: its channel states and the faults a test switched on. */
export class EmulatedDevice {
  readonly uuid: string;
  name: string;
  readonly type: string;
  readonly outlets: string[];
  readonly protocol: 'togglex' | 'toggle' | 'none';
  readonly firmware: string;
  online: boolean;
  /** Installing firmware: listed with onlineStatus 3 and deaf to requests. */
  upgrading = false;
  readonly broker: number;
  readonly garageDoor: boolean;
  readonly cover: boolean;
  readonly lightCapacity: number | null;
  readonly hubDevices: EmulatedSubDevice[];
  readonly thermostat: EmulatedThermostat | null;
  /** The light's settings, as Appliance.Control.Light carries them. */
  light = { luminance: 60, temperature: 30, rgb: 0x00ff00 };
  /** How long a full run of the cover takes. */
  coverTravelMs = 400;
  /** Cover position, 0 closed … 100 open, and the run under way. */
  coverPosition = 0;
  coverRun: { from: number; to: number; startedAt: number; timer: NodeJS.Timeout } | null = null;
  /** How long a door takes to open or close. */
  doorTravelMs = 300;
  /** Requests are received but never answered. */
  dropReplies = false;
  /** Answers are made when a request arrives but sent this much later (a slow network: they may be stale). */
  replyDelayMs = 0;
  /** Requests are answered with method ERROR and this code. */
  errorCode: number | null = null;
  readonly encryption: boolean;
  /** Appliance.Control.Multiple's maxCmdNum, null when the device does not declare it. */
  readonly multiple: number | null;
  readonly macAddress: string;
  /** Its address on the LAN (a loopback 127.0.x.y), as System.All's innerIp reports it; null while it has none. */
  lanAddress: string | null = null;
  /** Connected to its cloud broker: while false it hears nothing from the cloud and its pushes reach nobody. */
  cloudConnected = true;
  /** Its clock and, for a plug given one, its ConsumptionX (a test may rewrite it: a reset, a wrapped buffer). */
  energyLog: EnergyLog | null;
  private readonly states = new Map<number, boolean>();
  private readonly doors = new Map<number, boolean>();

  constructor(spec: EmulatedDeviceSpec) {
    this.uuid = spec.uuid;
    this.name = spec.name;
    this.type = spec.type;
    this.outlets = spec.outlets ?? [];
    this.protocol = spec.protocol ?? 'togglex';
    this.firmware = spec.firmware ?? '6.1.8';
    this.online = spec.online ?? true;
    this.broker = spec.broker ?? 0;
    this.garageDoor = spec.garageDoor ?? false;
    this.cover = spec.cover ?? false;
    this.lightCapacity = spec.lightCapacity ?? null;
    this.thermostat = spec.thermostat ? new EmulatedThermostat(spec.thermostat) : null;
    this.encryption = spec.encryption ?? false;
    this.multiple = spec.multiple === false ? null : (spec.multiple ?? (this.protocol === 'toggle' ? null : 5));
    this.energyLog = spec.energyLog ? structuredClone(spec.energyLog) : null;
    // A MAC of its own (in Meross's 48:e1:e9 range): the encrypted variant's key depends on it.
    this.macAddress = `48:e1:e9:${md5(spec.uuid).slice(0, 6).match(/../g)!.join(':')}`;
    this.hubDevices = (spec.hubDevices ?? []).map((d, i) => ({
      ...d,
      online: true,
      battery: 90 - i * 10,
      onoff: 1,
      room: 195 + i,
      custom: 210,
      mode: 0,
      humidity: 550 + i,
      leak: 0,
      smokeStatus: 170,
      doorStatus: 0,
    }));
    for (const channel of this.channelNumbers()) this.states.set(channel, false);
    if (this.garageDoor) this.doors.set(0, false);
  }

  /** The namespaces its Appliance.System.Ability answer declares. */
  abilities(): string[] {
    const own = SYSTEM_ABILITIES.slice();
    if (this.protocol === 'togglex') own.push('Appliance.Control.ToggleX');
    if (this.protocol === 'toggle') own.push('Appliance.Control.Toggle');
    if (this.protocol === 'none' && !this.thermostat) own.push('Appliance.Hub.SubdeviceList', 'Appliance.Digest.Hub');
    if (this.thermostat) own.push(...this.thermostat.abilities());
    if (this.garageDoor) own.push('Appliance.GarageDoor.State', 'Appliance.GarageDoor.Config');
    if (this.cover) own.push('Appliance.RollerShutter.State', 'Appliance.RollerShutter.Position', 'Appliance.RollerShutter.Config');
    if (this.lightCapacity !== null) own.push('Appliance.Control.Light');
    if (this.hubDevices.length > 0) {
      own.push(
        'Appliance.Hub.Mts100.All',
        'Appliance.Hub.Sensor.All',
        'Appliance.Hub.Battery',
        'Appliance.Hub.ToggleX',
        'Appliance.Hub.Mts100.Temperature',
        'Appliance.Hub.Mts100.Mode',
      );
      if (this.hubDevices.some(isSafety)) own.push(...SAFETY_ABILITIES);
    }
    if (this.type === 'mss310') own.push('Appliance.Control.Electricity', 'Appliance.Control.ConsumptionX');
    if (this.multiple !== null) own.push('Appliance.Control.Multiple');
    if (this.encryption) own.push('Appliance.Encrypt.Suite', 'Appliance.Encrypt.ECDHE');
    return own;
  }

  /** The Appliance.System.Ability payload: each namespace with its details (a light's capacity, Multiple's maxCmdNum). */
  abilityPayload(): Record<string, unknown> {
    const details = (ns: string) => {
      if (ns === 'Appliance.Control.Light') return { capacity: this.lightCapacity };
      if (ns === 'Appliance.Control.Multiple') return { maxCmdNum: this.multiple };
      return {};
    };
    return Object.fromEntries(this.abilities().map((ns) => [ns, details(ns)]));
  }

  /** The key of its encrypted LAN messages, for the account key it is bound with; null without encryption. */
  encryptionKey(accountKey: string): Buffer | null {
    return this.encryption ? lanEncryptionKey(this.uuid, accountKey, this.macAddress) : null;
  }

  /** Its ConsumptionX entries: the ones a test gave, else the last three days (Wh), dated in Europe/Berlin. */
  consumption(): Array<{ date: string; time: number; value: number }> {
    if (this.energyLog) return this.energyLog.consumptionx;
    const now = Math.floor(Date.now() / 1000);
    const berlin = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Berlin', year: 'numeric', month: '2-digit', day: '2-digit' });
    return [2, 0, 1].map((n) => ({ date: berlin.format((now - n * 86_400) * 1000), time: now - n * 86_400, value: 1000 + n * 250 }));
  }

  /** Its channels as Appliance.Control.ToggleX carries them. */
  toggleStates(): Array<{ channel: number; onoff: 0 | 1; lmTime: number }> {
    const lmTime = Math.floor(Date.now() / 1000);
    return this.channelNumbers().map((channel) => ({ channel, onoff: this.isOn(channel) ? 1 : 0, lmTime }));
  }

  /** The light as System.All's digest and Appliance.Control.Light pushes carry it. */
  lightState(): Record<string, number> {
    return { channel: 0, capacity: this.lightCapacity ?? 0, ...this.light, transform: 0 };
  }

  isOpen(channel = 0): boolean {
    return this.doors.get(channel) ?? false;
  }

  /** Moves a door; false when there is no such door. */
  setDoor(channel: number, open: boolean): boolean {
    if (!this.doors.has(channel)) return false;
    this.doors.set(channel, open);
    return true;
  }

  /** Where the cover is now, mid-run included. */
  coverNow(): number {
    const run = this.coverRun;
    if (!run) return this.coverPosition;
    const done = Math.min(1, (Date.now() - run.startedAt) / ((this.coverTravelMs * Math.abs(run.to - run.from)) / 100 || 1));
    return Math.round(run.from + (run.to - run.from) * done);
  }

  /** 0 idle, 1 opening, 2 closing, as Appliance.RollerShutter.State says it. */
  coverMotion(): 0 | 1 | 2 {
    if (!this.coverRun) return 0;
    return this.coverRun.to > this.coverRun.from ? 1 : 2;
  }

  /** The doors as Appliance.GarageDoor.State carries them. */
  doorStates(): Array<{ channel: number; open: 0 | 1; lmTime: number }> {
    const lmTime = Math.floor(Date.now() / 1000);
    return [...this.doors].map(([channel, open]) => ({ channel, open: open ? 1 : 0, lmTime }));
  }

  channelNumbers(): number[] {
    return [0, ...this.outlets.map((_, i) => i + 1)];
  }

  isOn(channel: number): boolean {
    return this.states.get(channel) ?? false;
  }

  /** Sets a channel; on a strip, channel 0 switches every outlet, as the real ones do. */
  set(channel: number, on: boolean): boolean {
    if (!this.states.has(channel)) return false;
    if (channel === 0) for (const c of this.states.keys()) this.states.set(c, on);
    else this.states.set(channel, on);
    return true;
  }

  /** 1 online, 2 offline, 3 upgrading, as devList and Appliance.System.Online say it (a device off the cloud is offline there). */
  get onlineStatus(): 1 | 2 | 3 {
    if (!this.online || !this.cloudConnected) return 2;
    return this.upgrading ? 3 : 1;
  }

  /** The devList entry the Meross API returns for this device; `mqttHost` is the host of its broker. */
  listEntry(mqttHost: string): Record<string, unknown> {
    return {
      uuid: this.uuid,
      onlineStatus: this.onlineStatus,
      devName: this.name,
      devIconId: 'device001',
      bindTime: 1_700_000_000,
      deviceType: this.type,
      subType: 'eu',
      channels: [{}, ...this.outlets.map((devName) => ({ type: 'Switch', devName }))],
      region: 'eu',
      fmwareVersion: this.firmware,
      hdwareVersion: '6.0.0',
      userDevIcon: '',
      iconType: 1,
      skillNumber: '',
      domain: mqttHost,
      reservedDomain: mqttHost,
    };
  }

  /**
   * The payload of a GETACK to Appliance.System.All: innerIp is its LAN address; its online status is that of its
   * own cloud connection (0 while it has none, as meross_lan's emulator keeps it), whichever transport asked.
   */
  systemAll(userId: string, mqttHost: string, cloudConnected = true): Record<string, unknown> {
    const lmTime = Math.floor(Date.now() / 1000);
    const firmware = {
      version: this.firmware,
      // Every firmware since 2023 says so, whether or not it encrypts (an MTS200 on 7.6.x speaks plain JSON):
      // only the Appliance.Encrypt.ECDHE ability tells a device that wants its LAN messages encrypted.
      encrypt: 1,
      wifiMac: this.macAddress,
      innerIp: this.lanAddress ?? '',
      server: mqttHost,
      port: 2001,
      userId: Number(userId),
    };
    const system = {
      hardware: { type: this.type, subType: 'eu', version: '6.0.0', uuid: this.uuid, macAddress: this.macAddress },
      firmware,
      time: { timestamp: lmTime, timezone: this.energyLog?.timezone ?? 'Europe/Berlin', timeRule: this.energyLog?.timeRule ?? [] },
      online: { status: cloudConnected ? 1 : 0 },
    };
    if (this.protocol === 'toggle') return { all: { system, control: { toggle: { onoff: this.isOn(0) ? 1 : 0, lmTime } } } };
    if (this.thermostat) return { all: { system, digest: this.thermostat.digest() } };
    if (this.protocol === 'none') return { all: { system, digest: { hub: { hubId: 1, mode: 0, subdevice: [] } } } };
    const togglex = this.toggleStates();
    const garageDoor = this.garageDoor ? { garageDoor: this.doorStates() } : {};
    const light = this.lightCapacity !== null ? { light: this.lightState() } : {};
    return { all: { system, digest: { togglex, triggerx: [], timerx: [], ...garageDoor, ...light } } };
  }
}
