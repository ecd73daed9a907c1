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
 * What a device can do, from the abilities it declares (Appliance.System.Ability): the capabilities of the device
 * families (src/families). Until the abilities are read, the backend infers them from the device type.
 */
export type Capability = keyof FamilyCapabilities;

/**
 * The capabilities of the device families, each with whether commands of that family exist (`control`): each family
 * adds its own (declaration merging, in its domain folder), so this file names none of them.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the families
export interface FamilyCapabilities {}

/** The cloud events of the device families (a push or a command's effect), by family; each family adds its own. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the families
export interface FamilyCloudEvents {}

/** The cloud ports of the device families: each family declares the reads and commands it needs from a backend. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the families
export interface FamilyClouds {}

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
/**
 * Flags of a device that only a device family has (absent: false), copied from the backend's description like the
 * rest of it; each family adds its own (declaration merging) and names them in its DomainFamily's `deviceFlags`.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the families
export interface FamilyDeviceFlags {}

export interface CloudDevice extends Partial<FamilyDeviceFlags> {
  uuid: string;
  name: string;
  type: string;
  online: boolean;
  /** Installing a firmware update (Meross onlineStatus 3): not online, back by itself. */
  upgrading?: boolean;
  /** The command channel (MQTT) to this device is connected. */
  commandReady: boolean;
  capabilities: Capability[];
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
export type CloudEvent = CoreCloudEvent | FamilyCloudEvents[keyof FamilyCloudEvents];

/** The cloud events the device service handles itself; the device families take the rest. */
export type CoreCloudEvent =
  | { type: 'sent'; via: 'api' | 'mqtt' | 'lan'; what: string }
  | { type: 'channel'; uuid: string; channel: number; on: boolean; source: 'command' | 'push' }
  | { type: 'online'; uuid: string; online: boolean; upgrading?: boolean }
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
export interface DeviceCloud extends FamilyClouds {
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
   * family call (a channel command, or any call of a device family) sends that read first: one message more; a
   * channel's state read never does. False for a device the backend does not know.
   */
  abilitiesKnown(uuid: string): boolean;
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
