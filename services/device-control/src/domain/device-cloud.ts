import { AppError } from '@homeops/common/core';

/** Which implementation of DeviceCloud serves the account. */
export type CloudBackend = 'meross' | 'simulator';

/**
 * The life of the cloud session, as /health reports it: backing-off retries by itself soon; locked-out waits out a
 * throttle or lock of the account (hours) and sends nothing meanwhile; needs-mfa waits for POST /cloud/login;
 * failed needs a change of configuration and a restart.
 */
export type CloudSessionState = 'connecting' | 'connected' | 'backing-off' | 'locked-out' | 'needs-mfa' | 'failed';

/**
 * Whether the session token survives a restart. `writable` is null where no token is kept (the simulator, or no
 * file configured), false once a check or a save failed, with the error (a path and an errno, never the token).
 */
export interface TokenStoreStatus {
  file: string | null;
  writable: boolean | null;
  error: string | null;
  savedAt: string | null;
}

/** Where no token is kept (the simulator). */
export const NO_TOKEN_STORE: TokenStoreStatus = Object.freeze({ file: null, writable: null, error: null, savedAt: null });

/** Where the cloud session stands; never carries a secret. */
export interface CloudStatus {
  backend: CloudBackend;
  state: CloudSessionState;
  /** The last failure of the session (login, API or broker), if any. */
  lastError: { code: string | number | null; message: string; at: string } | null;
  /** When the next login/connection attempt is due while backing off or locked out (ISO time). */
  retryAt: string | null;
  /** What the user must do (or that they must only wait, and until when); null while nothing is wrong. */
  action: string | null;
  tokenStore: TokenStoreStatus;
}

/**
 * What a device can do, from the abilities it declares (Appliance.System.Ability): `switch` (ToggleX/Toggle, and
 * never a garage door or cover), `garageDoor` (Appliance.GarageDoor.State), `cover` (Appliance.RollerShutter.*),
 * `light`, `energy`, `hubSensors`. Until the abilities are read, the backend infers them from the device type.
 */
export type Capability = 'switch' | 'garageDoor' | 'cover' | 'light' | 'energy' | 'hubSensors';

/** A garage door as its opener reports it; `opening` / `closing` while it moves after our command. */
export type GarageDoorState = 'open' | 'closed' | 'opening' | 'closing';

/** One door of an opener (msg100 has channel 0; msg200 has three). */
export interface GarageDoorReading {
  channel: number;
  state: GarageDoorState;
}

/** Whether a cover (roller shutter) is moving: Meross's 0 idle, 1 opening, 2 closing. */
export type CoverMotion = 'idle' | 'opening' | 'closing';

/** One cover channel: position 0 (closed) to 100 (open), null while unknown. */
export interface CoverReading {
  channel: number;
  position: number | null;
  motion: CoverMotion;
}

/** What a light can change besides on/off (Meross's capacity bits: 1 RGB, 2 temperature, 4 luminance). */
export interface LightFeatures {
  brightness: boolean;
  temperature: boolean;
  rgb: boolean;
}

/** Which of its settings a light shows: its colour temperature or its RGB colour (the one set last). */
export type LightColorMode = 'temperature' | 'rgb';

/** A light's settings: brightness and colour temperature 1–100 (warm to cold), colour as 0xRRGGBB; null while unknown. */
export interface LightReading {
  channel: number;
  brightness: number | null;
  temperature: number | null;
  rgb: number | null;
  supports: LightFeatures;
  /** What the light shows, when the device tells it (Meross's capacity bits); the service also knows it from the last change. */
  mode?: LightColorMode | null;
}

/** What a light command changes (at least one field). */
export interface LightChange {
  brightness?: number;
  temperature?: number;
  rgb?: number;
}

/** What an energy plug measures now: watts, volts, amperes. */
export interface PowerReading {
  power: number;
  voltage: number;
  current: number;
}

/** Energy used on one day (the device's own date), in kWh. */
export interface DailyEnergy {
  date: string;
  kWh: number;
}

/** One device behind a hub (msh300): a thermostat valve (mts100) or a temperature/humidity sensor (ms100). */
export interface HubSubDeviceReading {
  id: string;
  name: string;
  kind: 'valve' | 'sensor' | 'other';
  model: string;
  online: boolean;
  /** Battery in %. */
  battery: number | null;
  /** °C; a valve's room temperature, a sensor's reading. */
  temperature: number | null;
  /** % relative humidity (sensors). */
  humidity: number | null;
  /** Valves: open (heating allowed), the target and the range it accepts, °C. */
  on: boolean | null;
  targetTemperature: number | null;
  minTemperature: number | null;
  maxTemperature: number | null;
}

/** What a valve command changes. */
export interface ValveChange {
  on?: boolean;
  targetTemperature?: number;
}

/** One channel as the cloud describes it (index 0 is the whole device on single-channel plugs). */
export interface CloudChannel {
  channel: number;
  name: string;
}

/** How messages reach a device now: straight over the LAN, through the cloud, or neither. */
export type DeviceTransport = 'lan' | 'cloud' | 'unreachable';

/** How the backend reaches one device, as the adapter sees it now. */
export interface DeviceLink {
  /** What the next message to the device takes; a `lan` message never counts against the cloud budget. */
  transport: DeviceTransport;
  /** The device's LAN address (`host` or `host:port`), null while unknown. */
  address: string | null;
  /** Where the address came from: the configuration or the device itself (Appliance.System.All). */
  addressSource: 'config' | 'learned' | null;
  /** Pushes from the device reach the service (its cloud broker connection is up); otherwise its state is polled over the LAN. */
  pushes: boolean;
  /** Why the LAN is not used for the device, in words; null while it is (or while no address is known). */
  lanProblem: string | null;
}

/**
 * A LAN call to a device failed (no answer, refused) and the backend now routes the device through the cloud: the
 * service admits the cloud messages to the budget and runs the call once more. Never reaches a client unless the
 * second run fails the same way (then it reads as the device's timeout).
 */
export class LanCallFailed extends AppError {
  constructor(uuid: string, reason: string) {
    super('CLOUD_TIMEOUT', `Device ${uuid} did not answer over the LAN (${reason})`);
  }
}

/** A device as the cloud describes it, before the service adds state. */
export interface CloudDevice {
  uuid: string;
  name: string;
  type: string;
  online: boolean;
  /** Installing a firmware update (Meross onlineStatus 3): not online, back by itself. */
  upgrading?: boolean;
  /** The command channel (MQTT) to this device is connected. */
  commandReady: boolean;
  /** The device can be switched: it has the `switch` capability. */
  switchable: boolean;
  capabilities: Capability[];
  /** A cover that goes to any position, not only fully open or closed (Meross firmware 6.6.6 and later). */
  coverPositioning?: boolean;
  channels: CloudChannel[];
  firmware?: string;
  hardware?: string;
  /** How the device is reached; a backend without a LAN transport leaves it out (the cloud, when commandReady). */
  link?: DeviceLink;
}

/**
 * Something that happened on the cloud side: a push, a command's effect, a session change, or one message of ours
 * that left (`sent`: every HTTP API call and MQTT request, logins included, which the budget counts, and every LAN
 * request to a device (`via: 'lan'`), which it does not).
 */
export type CloudEvent =
  | { type: 'sent'; via: 'api' | 'mqtt' | 'lan'; what: string }
  | { type: 'channel'; uuid: string; channel: number; on: boolean; source: 'command' | 'push' }
  | { type: 'online'; uuid: string; online: boolean; upgrading?: boolean }
  | { type: 'garageDoor'; uuid: string; channel: number; state: GarageDoorState; source: 'command' | 'push' | 'read' }
  | { type: 'cover'; uuid: string; channel: number; position?: number; motion?: CoverMotion; source: 'push' }
  | ({ type: 'light'; uuid: string; channel: number; source: 'push'; mode?: LightColorMode } & LightChange)
  | { type: 'hubDevice'; uuid: string; id: string; change: Partial<HubSubDeviceReading>; source: 'push' }
  | { type: 'device'; device: CloudDevice }
  | { type: 'session'; status: CloudStatus };

/**
 * The account's devices as one backend (the Meross cloud, or the simulator) sees them.
 * Failures are AppErrors: CLOUD_UNAVAILABLE (session not up / backing off, with retryAfterSeconds),
 * CLOUD_TIMEOUT (no answer in time), CLOUD_ERROR (the cloud or device answered with an error),
 * DEVICE_NOT_FOUND, DEVICE_NOT_CONTROLLABLE.
 * A backend sends nothing to devices on its own (not even a state read on reconnect): every device request
 * answers a call of the service, which admits its calls to the account's message budget. Every message that
 * reaches the cloud is announced as a `sent` event, including the ones the session sends by itself (logins).
 */
export interface DeviceCloud {
  readonly backend: CloudBackend;
  /** The backend talks to devices over the LAN where it can (absent or false: the cloud only). */
  readonly lanControl?: boolean;
  /** Starts the session in the background; resolves at once and never rejects because the cloud is down. */
  start(): Promise<void>;
  /** Closes the session (broker connections, timers); does not log out, so the token stays reusable. */
  stop(): Promise<void>;
  status(): CloudStatus;
  /** The account's device list, fetched from the cloud now; rejects (never returns []) when the answer is not trustworthy. */
  listDevices(): Promise<CloudDevice[]>;
  /**
   * Whether the backend knows the device's abilities (Appliance.System.Ability). While it does not, the device's first
   * family call (a switch or light command, a light read, a door, cover, energy or hub call) sends that read first:
   * one message more; a switch's state read never does. False for a device the backend does not know.
   */
  abilitiesKnown(uuid: string): boolean;
  /** Reads every channel's state from the device (Appliance.System.All). */
  readChannels(uuid: string): Promise<Array<{ channel: number; on: boolean }>>;
  /** Switches one channel and resolves once the device acknowledged it. */
  setChannel(uuid: string, channel: number, on: boolean): Promise<void>;
  /** Reads the state of every door of a garage door opener (Appliance.GarageDoor.State). */
  readGarageDoors(uuid: string): Promise<GarageDoorReading[]>;
  /** Opens or closes one door; resolves the door's answer (`opening`/`closing` while it moves, or where it already is). */
  setGarageDoor(uuid: string, channel: number, open: boolean): Promise<GarageDoorReading>;
  /** Reads position and motion of every cover channel (Appliance.RollerShutter.Position and .State: two messages). */
  readCovers(uuid: string): Promise<CoverReading[]>;
  /**
   * Sends a cover toward a position (100 open, 0 closed, in between where the device supports it) or stops it
   * (`stop`); resolves once the device acknowledged. Where it ends up arrives as pushes.
   */
  moveCover(uuid: string, channel: number, target: number | 'stop'): Promise<void>;
  /** Reads each light channel's settings and what the light supports (its abilities and Appliance.System.All). */
  readLight(uuid: string): Promise<LightReading[]>;
  /** Changes brightness, colour temperature or colour (Appliance.Control.Light); resolves once acknowledged. */
  setLight(uuid: string, channel: number, change: LightChange): Promise<void>;
  /** Reads power, voltage and current now (Appliance.Control.Electricity). */
  readPower(uuid: string): Promise<PowerReading>;
  /** Reads the energy used per day as the device keeps it (Appliance.Control.ConsumptionX). */
  readDailyEnergy(uuid: string): Promise<DailyEnergy[]>;
  /** Reads every device behind a hub with its readings and battery (Hub.Mts100.All, Hub.Sensor.All, Hub.Battery). */
  readHub(uuid: string): Promise<HubSubDeviceReading[]>;
  /** Turns a valve on or off and/or sets its target temperature; resolves once the hub acknowledged. */
  setValve(uuid: string, id: string, change: ValveChange): Promise<void>;
  /**
   * Logs in once with the current code of the authenticator app, for a session in needs-mfa. MFA_CODE_REJECTED when
   * the cloud refuses the code, CLOUD_LOGIN_NOT_NEEDED in any other state.
   */
  submitMfaCode(code: string): Promise<void>;
  /**
   * Reads what the device reports in one go (Appliance.System.All, and its family's state where that lacks it) and
   * announces it as events, like pushes; a System.All answer also tells the device's LAN address. `lanOnly`: never a
   * cloud message (polling while pushes do not arrive); else by the device's transport. Absent without a LAN transport.
   */
  refresh?(uuid: string, lanOnly: boolean): Promise<void>;
  /**
   * The device list kept from an earlier run (with the LAN addresses learnt then), for a start while the cloud
   * cannot be reached; null when none was kept.
   */
  storedDevices?(): Promise<CloudDevice[] | null>;
  /** Subscribes to cloud events; returns the unsubscribe function. */
  onEvent(listener: (event: CloudEvent) => void): () => void;
}
