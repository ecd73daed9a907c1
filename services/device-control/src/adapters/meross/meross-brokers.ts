import { setRepeatingTimer, type Clock, type Logger, type Timer } from '@homeops/common';
import type { LibraryCloud, LibraryDevice, LibraryMessage, LibraryMqttClient, MerossDeviceDefinition, MqttConnection } from './meross-library.js';
import { backoffDelay } from './meross-backoff.js';
import type { SecretRedactor } from './meross-secrets.js';

/** Waits of the broker recovery, in milliseconds; tests pass small values. */
export interface BrokerRecoveryOptions {
  /** First wait before a refused broker connection is made again; doubles up to `maxRecreateMs`. */
  recreateMs: number;
  maxRecreateMs: number;
  /** How often every broker of the account is checked for a connection nobody will bring back. */
  watchdogMs: number;
  /** How long mqtt.js waits before it connects a dropped client again (meross-cloud sets 5 s). */
  reconnectMs: number;
}

/** Production waits: mqtt.js retries a dropped connection every 5 s by itself; a refused one is made again after 5 s, up to 2 min. */
export const DEFAULT_BROKER_WAITS: BrokerRecoveryOptions = { recreateMs: 5_000, maxRecreateMs: 120_000, watchdogMs: 30_000, reconnectMs: 5_000 };

interface BrokersDeps {
  lib: LibraryCloud;
  log: Logger;
  redactor: SecretRedactor;
  recovery: BrokerRecoveryOptions;
  clock: Clock;
  /** One MQTT request left for a device. */
  onSent: (namespace: string) => void;
  /**
   * A broker became ready (its subscriptions acknowledged) or was lost without the library telling its devices
   * (it closes silently before making a new client): these devices' readiness may have changed.
   */
  onBrokerChange: (uuids: string[]) => void;
}

/**
 * meross-cloud's broker connections, with its three hazards fixed at the edge:
 * - it stamps every request with the reply topic of whichever broker connected last, so devices on any other broker
 *   answer where nobody listens: each request gets the reply topic of the broker its device is on;
 * - after a 'Server unavailable' refusal it makes a new client at once (a tight loop while the broker refuses) for
 *   the account's default broker instead of the device's, or throws from a timer for a device it has since dropped
 *   (the process would exit), and the device's broker stays without a client until the next full sync: the new client
 *   is made here, after a backoff, for the right broker, and a watchdog brings back any broker left without a live
 *   client, with the saved session (no login);
 * - its `disconnectAll` throws on a broker without a client: stopping ends each client on its own;
 * - it tells devices 'connected' before the broker acknowledged its subscriptions, so a push or reply in between is
 *   lost: a broker counts as up only once every subscription made on its connect is acknowledged.
 */
export class MerossBrokers {
  private readonly guarded = new WeakSet<LibraryMqttClient>();
  /** Subscriptions not yet acknowledged since the client's last connect; absent until it connected once. */
  private readonly pendingSubscriptions = new WeakMap<LibraryMqttClient, number>();
  private readonly recreating = new Map<string, Timer>();
  private readonly failures = new Map<string, number>();
  private readonly createLibraryClient: (dev: MerossDeviceDefinition) => void;
  private readonly watchdog: Timer;
  private stopped = false;

  constructor(private readonly deps: BrokersDeps) {
    const { lib } = deps;
    const initMqtt = lib.initMqtt.bind(lib);
    const sendMessageMqtt = lib.sendMessageMqtt.bind(lib);
    this.createLibraryClient = (dev) => {
      initMqtt(dev);
      this.guard(lib.mqttConnections[domainOf(lib, dev)]?.client ?? null);
    };
    lib.initMqtt = (dev) => this.initMqtt(dev);
    lib.sendMessageMqtt = (dev, data) => this.send(dev, data, sendMessageMqtt);
    this.watchdog = setRepeatingTimer(deps.clock, () => this.check(), deps.recovery.watchdogMs);
  }

  /** The broker of this device has a connected client whose subscriptions are acknowledged. */
  isUp(def: MerossDeviceDefinition): boolean {
    const client = this.deps.lib.mqttConnections[def.domain ?? '']?.client;
    return client?.connected === true && this.pendingSubscriptions.get(client) === 0;
  }

  /** A broker connected: its refusals are forgiven. */
  onConnected(def: MerossDeviceDefinition): void {
    if (this.isUp(def)) this.failures.delete(domainOf(this.deps.lib, def));
  }

  /** A device left the account: the library must not make a client for it, nor keep its broker open for it alone. */
  forget(uuid: string): void {
    for (const [domain, connection] of Object.entries(this.deps.lib.mqttConnections)) {
      const list = connection.deviceList;
      if (!list?.includes(uuid)) continue;
      list.splice(list.indexOf(uuid), 1);
      if (list.length === 0) this.endClient(domain, connection);
    }
  }

  /** Ends every client and timer; safe whatever state the library's connections are in. */
  stop(): void {
    this.stopped = true;
    this.watchdog.cancel();
    for (const timer of this.recreating.values()) timer.cancel();
    this.recreating.clear();
    for (const device of Object.values(this.deps.lib.devices)) device.disconnect(true);
    for (const [domain, connection] of Object.entries(this.deps.lib.mqttConnections)) this.endClient(domain, connection);
  }

  private initMqtt(given: MerossDeviceDefinition | LibraryDevice | undefined): void {
    if (this.stopped) return;
    // The library's re-creation after a refusal passes a device object, not its definition: its domain would be
    // missed and the new client made for the account's default broker, leaving the device's own without one.
    const dev = given && 'dev' in given ? given.dev : given;
    if (!dev) {
      // The library's re-creation after a refusal, for a device it no longer has: recover every broker left bare.
      this.check();
      return;
    }
    const domain = domainOf(this.deps.lib, dev);
    const connection = this.deps.lib.mqttConnections[domain];
    if (connection?.silentReInitialization && !connection.client) {
      this.deps.onBrokerChange([...(connection.deviceList ?? [])]);
      this.scheduleRecreate(domain);
      return;
    }
    this.createLibraryClient(dev);
  }

  private send(dev: MerossDeviceDefinition, data: LibraryMessage, sendMessageMqtt: LibraryCloud['sendMessageMqtt']): boolean {
    const client = this.deps.lib.mqttConnections[dev.domain ?? '']?.client;
    // Not connected: mqtt.js would queue the request and deliver it, stale, whenever the broker comes back.
    if (this.stopped || !client?.connected) return false;
    const replyTopic = this.replyTopicOf(client);
    if (data.header && replyTopic) data.header.from = replyTopic;
    const sent = sendMessageMqtt(dev, data);
    if (sent) this.deps.onSent(data.header?.namespace ?? 'unknown');
    return sent;
  }

  /** The topic this client subscribed to for replies: meross-cloud derives it from the client id. */
  private replyTopicOf(client: LibraryMqttClient): string | null {
    const appId = /^app:(.+)$/.exec(client.options.clientId ?? '')?.[1];
    return appId && this.deps.lib.userId ? `/app/${this.deps.lib.userId}-${appId}/subscribe` : null;
  }

  /** Brings back every broker that serves devices but has no client that will ever connect again. */
  private check(): void {
    if (this.stopped) return;
    for (const [domain, connection] of Object.entries(this.deps.lib.mqttConnections)) {
      if (!connection.deviceList?.length || this.recreating.has(domain)) continue;
      const client = connection.client;
      if (client && !client.disconnecting) continue;
      this.deps.log.warn({ broker: domain }, 'meross broker left without a connection; making a new one');
      this.scheduleRecreate(domain);
    }
  }

  private scheduleRecreate(domain: string): void {
    if (this.stopped || this.recreating.has(domain)) return;
    const failures = (this.failures.get(domain) ?? 0) + 1;
    this.failures.set(domain, failures);
    const delay = backoffDelay(this.deps.recovery.recreateMs, failures, this.deps.recovery.maxRecreateMs);
    this.deps.log.info({ broker: domain, retryInMs: delay }, 'meross broker connection will be made again');
    const timer = this.deps.clock.setTimer(() => {
      this.recreating.delete(domain);
      this.recreate(domain);
    }, delay);
    this.recreating.set(domain, timer);
  }

  private recreate(domain: string): void {
    const { lib } = this.deps;
    const connection = lib.mqttConnections[domain];
    const uuid = connection?.deviceList?.find((id) => lib.devices[id] !== undefined);
    if (this.stopped || !connection || !uuid) return;
    if (connection.client?.disconnecting) connection.client = null;
    connection.silentReInitialization = true;
    try {
      this.createLibraryClient(lib.devices[uuid]!.dev);
    } catch (err) {
      this.deps.log.warn({ broker: domain, error: this.deps.redactor.describe(err) }, 'could not make a meross broker connection');
      this.scheduleRecreate(domain);
    }
  }

  /**
   * meross-cloud's MQTT message handler reads `message.header.from` unchecked: a message without a header would
   * throw inside mqtt.js and end the process. Each client gets a guard as it is made, before any message; the
   * guard also counts the subscriptions the library makes on each connect until the broker acknowledges them.
   */
  private guard(client: LibraryMqttClient | null): void {
    if (!client || this.guarded.has(client)) return;
    this.guarded.add(client);
    // mqtt.js reads it each time it schedules a reconnect.
    client.options.reconnectPeriod = this.deps.recovery.reconnectMs;
    const subscribe = client.subscribe.bind(client);
    client.subscribe = (topic, ...rest) => {
      const callback = rest.at(-1);
      if (typeof callback !== 'function') return subscribe(topic, ...rest);
      this.pendingSubscriptions.set(client, (this.pendingSubscriptions.get(client) ?? 0) + 1);
      return subscribe(topic, ...rest.slice(0, -1), (...result: unknown[]) => {
        this.acknowledged(client);
        (callback as (...args: unknown[]) => unknown)(...result);
      });
    };
    const emit = client.emit.bind(client);
    client.emit = (event, ...args) => {
      if (event === 'connect') return this.connecting(client, () => emit(event, ...args));
      if (event !== 'message') return emit(event, ...args);
      try {
        return emit(event, ...args);
      } catch (err) {
        this.deps.log.warn({ error: this.deps.redactor.describe(err) }, 'ignored an MQTT message meross-cloud could not handle');
        return true;
      }
    };
  }

  /** The library's connect handler subscribes; until the broker acknowledges, its devices are not ready. */
  private connecting(client: LibraryMqttClient, emit: () => boolean): boolean {
    this.pendingSubscriptions.set(client, 0);
    const result = emit();
    if (this.pendingSubscriptions.get(client) === 0) this.notifyDevicesOf(client);
    return result;
  }

  private acknowledged(client: LibraryMqttClient): void {
    const pending = Math.max(0, (this.pendingSubscriptions.get(client) ?? 1) - 1);
    this.pendingSubscriptions.set(client, pending);
    if (pending === 0) this.notifyDevicesOf(client);
  }

  private notifyDevicesOf(client: LibraryMqttClient): void {
    const connection = Object.values(this.deps.lib.mqttConnections).find((c) => c.client === client);
    if (connection?.deviceList?.length) this.deps.onBrokerChange([...connection.deviceList]);
  }

  private endClient(domain: string, connection: MqttConnection): void {
    try {
      connection.client?.end(true);
    } catch (err) {
      this.deps.log.warn({ broker: domain, error: this.deps.redactor.describe(err) }, 'could not close a meross broker connection');
    }
  }
}

function domainOf(lib: LibraryCloud, dev: MerossDeviceDefinition): string {
  return dev.domain || lib.mqttDomain;
}
