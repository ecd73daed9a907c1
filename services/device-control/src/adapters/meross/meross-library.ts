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
  getSystemAllData(callback: LibraryCallback<unknown>): string;
  controlToggleX(channel: number, on: boolean, callback: LibraryCallback<unknown>): string;
  controlToggle(on: boolean, callback: LibraryCallback<unknown>): string;
}

/** The mqtt.js client meross-cloud keeps per broker domain. */
export interface LibraryMqttClient {
  connected: boolean;
  emit(event: string | symbol, ...args: unknown[]): boolean;
}

interface MqttConnection {
  client: LibraryMqttClient | null;
}

/**
 * The part of the meross-cloud instance the adapter uses. Beyond its public methods this includes the
 * session fields (token, key, domains) and the HTTP transport `authenticatedPost`, which the adapter replaces.
 */
export interface LibraryCloud {
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
  disconnectAll(force: boolean): void;
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
