import MerossCloudLibrary from 'meross-cloud';

/** A device entry of /v1/Device/devList, as the library hands it around. */
export interface MerossDeviceDefinition {
  uuid: string;
  devName?: string | undefined;
  deviceType: string;
  subType?: string | undefined;
  onlineStatus?: number | undefined;
  channels?: Array<{ devName?: string | undefined } | null> | undefined;
  fmwareVersion?: string | undefined;
  hdwareVersion?: string | undefined;
  domain?: string | undefined;
  reservedDomain?: string | undefined;
}

/** meross-cloud's node-style callback. */
export type LibraryCallback<T> = (error: Error | null, data?: T) => void;

/** The part of a meross-cloud device object the adapter uses, internals included. */
export interface LibraryDevice {
  dev: MerossDeviceDefinition;
  waitingMessageIds: Record<string, { callback: LibraryCallback<unknown>; timeout?: NodeJS.Timeout }>;
  publishMessage(method: 'GET' | 'SET', namespace: string, payload: unknown, callback: LibraryCallback<unknown>): string;
  /** A gateway's devices as the cloud's getSubDevices named them. */
  subDeviceList?: unknown;
  disconnect(force?: boolean): void;
}

/** The mqtt.js client meross-cloud keeps per broker domain. */
export interface LibraryMqttClient {
  connected: boolean;
  /** Set once `end` was called: such a client never connects again. */
  disconnecting: boolean;
  options: { clientId?: string; reconnectPeriod?: number };
  emit(event: string | symbol, ...args: unknown[]): boolean;
  subscribe(topic: string, ...rest: unknown[]): unknown;
  end(force?: boolean): unknown;
}

/** meross-cloud's record of one broker: its client and the devices it serves. */
export interface MqttConnection {
  client: LibraryMqttClient | null;
  deviceList?: string[];
  /** Set by the library between a 'Server unavailable' refusal and its own re-creation of the client. */
  silentReInitialization?: boolean;
}

/** A message as meross-cloud encodes it for a device. */
export interface LibraryMessage {
  header?: { from?: string | null; namespace?: string; method?: string };
}

/**
 * The part of the meross-cloud instance the adapter uses. Beyond its public methods this includes the
 * session fields (token, key, domains) and the HTTP transport `authenticatedPost`, which the adapter replaces.
 */
export interface LibraryCloud {
  /** The constructor's options; `mfaCode` is read by each login. */
  options: { mfaCode?: string };
  token: string | null;
  key: string | null;
  userId: string | null;
  userEmail: string | null;
  authenticated: boolean;
  httpDomain: string;
  mqttDomain: string;
  timeout: number;
  devices: Record<string, LibraryDevice>;
  mqttConnections: Record<string, MqttConnection>;
  authenticatedPost(endpoint: string, params: unknown, callback: LibraryCallback<unknown>): void;
  login(callback: LibraryCallback<number>): void;
  getDevices(callback: LibraryCallback<number>): void;
  initMqtt(dev: MerossDeviceDefinition | LibraryDevice | undefined): void;
  sendMessageMqtt(dev: MerossDeviceDefinition, data: LibraryMessage): boolean;
  on(event: string, listener: (...args: never[]) => void): unknown;
  removeAllListeners(event?: string): unknown;
}

/** Options the adapter gives the library: never a logger, since it would receive tokens, keys and the password hash. */
export interface LibraryOptions {
  email: string;
  password: string;
  mfaCode?: string;
  timeout: number;
}

/** The one place `meross-cloud` is instantiated. */
export function createLibraryCloud(options: LibraryOptions): LibraryCloud {
  const Constructor = MerossCloudLibrary as unknown as new (options: LibraryOptions) => LibraryCloud;
  return new Constructor(options);
}
