import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IClientOptions, MqttClient } from 'mqtt';
import type { Clock, Timer } from '../clock.js';
import type { Logger } from '../logger.js';
import { withTimeout } from '../timeout.js';
import { buildDiscoveryMessage, slugOf, type DiscoveryDevice, type DiscoveryOrigin } from './discovery.js';
import { brokerLabel, type MqttSettings } from './mqtt-config.js';
import { OutboundQueue } from './outbound-queue.js';
import { guardPacketSize } from './packet-size-guard.js';

/** What /health shows of the bridge (`off` when MQTT_URL is unset); never a user name or password. */
export interface MqttStatus {
  state: 'connected' | 'connecting' | 'disconnected' | 'off';
  /** scheme://host:port */
  broker: string | null;
  lastError: string | null;
  /** When the current state began. */
  since: string | null;
}

/** Calls a subscription's handler: a message on a topic the service listens to. */
export type MqttMessageHandler = (topic: string, payload: Buffer) => void | Promise<void>;

/** How a bridge is built; the settings come from mqttSettingsOf(config). */
export interface MqttBridgeOptions {
  settings: MqttSettings;
  origin: DiscoveryOrigin;
  clock: Clock;
  logger: Logger;
  /** Bound of every broker call (connect, subscribe, publish, disconnect); default 5 s. */
  callTimeoutMs?: number;
  /** Non-retained messages kept while the broker is away (the oldest are dropped past it); default 1000. */
  maxQueued?: number;
  /** Publishes awaiting the broker's acknowledgement at once; default 100. */
  maxInFlight?: number;
  /**
   * The largest packet the broker may send this service (topic and payload), default 1 MiB: asked of the broker as
   * MQTT 5's Maximum Packet Size (Mosquitto 2 then drops a larger message for this client), and enforced on the
   * connection whatever the broker does (a larger packet ends the connection before it is buffered).
   */
  maxPacketBytes?: number;
}

/** The MQTT versions the bridge speaks: 5 first, 3.1.1 with a broker that refuses 5. */
type ProtocolVersion = 5 | 4;

/** CONNACK codes of a broker that does not speak the version asked: 3.1.1's 1, MQTT 5's 0x84. */
const UNSUPPORTED_VERSION = new Set([1, 0x84]);

/** The life cycle of the broker connection: one value, moved only by `moveTo`. */
type Connection =
  | { kind: 'idle' }
  | { kind: 'connecting'; client: MqttClient; failures: number; downSince: number }
  | { kind: 'connected'; client: MqttClient; since: number }
  | { kind: 'backingOff'; timer: Timer; failures: number; downSince: number }
  | { kind: 'stopped'; since: number };

/**
 * One service's connection to an MQTT broker for Home Assistant: a last will (`offline`, retained) on
 * `<base>/availability` and `online` once connected; discovery and state messages kept (latest per topic), published
 * when they change, and again after every reconnect and whenever Home Assistant announces `online` on
 * `<prefix>/status`; devices that went
 * away get their retained config cleared. Publishing never waits for the broker (fire-and-forget through a bounded
 * queue), so a broker outage only shows in `status()`. Reconnects back off on the injected clock.
 */
export class MqttBridge {
  readonly availabilityTopic: string;
  readonly homeAssistantStatusTopic: string;
  private readonly broker: string;
  private readonly idPrefix: string;
  private readonly queue: OutboundQueue;
  private readonly handlers = new Map<string, MqttMessageHandler>();
  private readonly devices = new Map<string, string>();
  private connection: Connection = { kind: 'idle' };
  private lastError: string | null = null;
  private readonly callTimeoutMs: number;
  private readonly clientId: string;
  private readonly maxPacketBytes: number;
  private protocolVersion: ProtocolVersion = 5;

  constructor(private readonly options: MqttBridgeOptions) {
    const { settings } = options;
    this.broker = brokerLabel(settings.url);
    this.availabilityTopic = `${settings.baseTopic}/availability`;
    this.homeAssistantStatusTopic = `${settings.discoveryPrefix}/status`;
    this.idPrefix = `${slugOf(settings.baseTopic)}_`;
    this.callTimeoutMs = options.callTimeoutMs ?? 5_000;
    this.clientId = `${this.idPrefix}${randomBytes(4).toString('hex')}`;
    this.maxPacketBytes = options.maxPacketBytes ?? 1024 * 1024;
    this.queue = new OutboundQueue({
      maxQueued: options.maxQueued ?? 1_000,
      maxInFlight: options.maxInFlight ?? 100,
      send: (message) => this.send(message.topic, message.payload, message.retain),
      onDropped: (count) => options.logger.warn({ broker: this.broker, dropped: count }, 'mqtt: the outbound queue is full; the oldest events were dropped'),
    });
  }

  get settings(): MqttSettings {
    return this.options.settings;
  }

  /** A device id owned by this bridge: the base topic's slug, then `localId` (so two services never clear each other's). */
  deviceId(localId: string): string {
    return `${this.idPrefix}${slugOf(localId)}`;
  }

  /** Listens on `filter` (MQTT wildcards allowed) from now on, across reconnects. */
  subscribe(filter: string, handler: MqttMessageHandler): void {
    this.handlers.set(filter, handler);
    const current = this.connection;
    if (current.kind === 'connected') void this.subscribeOn(current.client, [filter]);
  }

  /** The devices this service shows in Home Assistant now: new and changed ones are published, gone ones cleared. */
  setDevices(devices: DiscoveryDevice[]): void {
    const next = new Map(devices.map((device) => [device.id, device]));
    for (const id of this.devices.keys()) if (!next.has(id)) this.removeDevice(id);
    for (const device of devices) {
      if (!device.id.startsWith(this.idPrefix)) throw new Error(`device ${device.id} is not named through deviceId()`);
      const message = buildDiscoveryMessage(this.settings.discoveryPrefix, device, this.options.origin, [this.availabilityTopic]);
      if (this.devices.get(device.id) === message.payload) continue;
      this.devices.set(device.id, message.payload);
      this.queue.retain(message.topic, message.payload, 'discovery');
    }
  }

  /** Removes a device from Home Assistant: its retained config is cleared (an empty retained message). */
  removeDevice(id: string): void {
    this.devices.delete(id);
    this.queue.retain(`${this.settings.discoveryPrefix}/device/${id}/config`, '', 'discovery');
  }

  /**
   * A state: retained, published only when it changed (a periodic sync repeats every state), and the latest per topic
   * is published again after a reconnect and when Home Assistant announces `online`.
   */
  publishState(topic: string, payload: string): void {
    this.queue.retain(topic, payload, 'state');
  }

  /** A state published even when unchanged: a refused command tells Home Assistant the true state again. */
  publishStateAgain(topic: string, payload: string): void {
    this.queue.retain(topic, payload, 'state', true);
  }

  /** A one-off message (an event, an error report): not retained; queued (bounded) while the broker is away. */
  publishEvent(topic: string, payload: string): void {
    this.queue.push(topic, payload);
  }

  status(): MqttStatus {
    const current = this.connection;
    const at = (ms: number) => new Date(ms).toISOString();
    switch (current.kind) {
      case 'idle':
        return { state: 'connecting', broker: this.broker, lastError: this.lastError, since: null };
      case 'connecting':
        return { state: 'connecting', broker: this.broker, lastError: this.lastError, since: at(current.downSince) };
      case 'connected':
        return { state: 'connected', broker: this.broker, lastError: this.lastError, since: at(current.since) };
      case 'backingOff':
        return { state: 'disconnected', broker: this.broker, lastError: this.lastError, since: at(current.downSince) };
      case 'stopped':
        return { state: 'off', broker: this.broker, lastError: this.lastError, since: at(current.since) };
    }
  }

  /** Starts connecting; resolves at once (the connection comes up, and back, on its own). */
  start(): void {
    if (this.connection.kind !== 'idle') return;
    void this.connect(0, this.options.clock.now());
  }

  /** Says `offline` (retained) and disconnects, each within the call timeout; no reconnect after it. */
  async stop(): Promise<void> {
    const current = this.connection;
    this.moveTo({ kind: 'stopped', since: this.options.clock.now() });
    if (current.kind === 'backingOff') current.timer.cancel();
    if (current.kind === 'connected') {
      await this.call(current.client.publishAsync(this.availabilityTopic, 'offline', { qos: 1, retain: true }), 'publishing offline').catch(() => undefined);
      await this.call(current.client.endAsync(), 'disconnecting').catch(() => undefined);
    }
    if (current.kind === 'connected' || current.kind === 'connecting') current.client.end(true);
  }

  private moveTo(next: Connection): void {
    this.connection = next;
    if (next.kind !== 'connected') this.queue.pause();
  }

  private async connect(failures: number, downSince: number): Promise<void> {
    let client: MqttClient;
    try {
      // Loaded here, not at import: a service without MQTT_URL never loads the mqtt package.
      const { connect } = await import('mqtt');
      if (this.connection.kind === 'stopped') return;
      client = connect(this.settings.url, this.clientOptions());
      // connect() built the socket and piped it to the parser; no byte has arrived yet.
      guardPacketSize(client.stream, this.maxPacketBytes);
    } catch (err) {
      this.fail(failures, downSince, err);
      return;
    }
    this.moveTo({ kind: 'connecting', client, failures, downSince });
    client.on('connect', () => void this.onConnected(client));
    client.on('error', (err) => this.onError(client, err));
    client.on('message', (topic, payload, packet) => void this.onMessage(topic, payload, packet.retain));
    client.on('close', () => this.onClosed(client));
  }

  private clientOptions(): IClientOptions {
    const { settings } = this;
    return {
      clientId: this.clientId,
      clean: true,
      // Reconnects are this bridge's, on the injected clock (moveTo/backingOff), not the library's own timer.
      reconnectPeriod: 0,
      connectTimeout: this.callTimeoutMs,
      keepalive: 30,
      protocolVersion: this.protocolVersion,
      ...(this.protocolVersion === 5 ? { properties: { maximumPacketSize: this.maxPacketBytes } } : {}),
      will: { topic: this.availabilityTopic, payload: Buffer.from('offline'), qos: 1, retain: true },
      ...(settings.username === undefined ? {} : { username: settings.username }),
      ...(settings.password === undefined ? {} : { password: settings.password }),
      ...(settings.caFile === undefined ? {} : { ca: readFileSync(settings.caFile) }),
      rejectUnauthorized: settings.rejectUnauthorized,
    };
  }

  private async onConnected(client: MqttClient): Promise<void> {
    const current = this.connection;
    if (current.kind !== 'connecting' || current.client !== client) return;
    const now = this.options.clock.now();
    this.moveTo({ kind: 'connected', client, since: now });
    // What went wrong before is over; /health shows the error of the current outage only.
    this.lastError = null;
    this.options.logger.info({ broker: this.broker }, 'mqtt: connected to the broker');
    // Devices of this service left retained by an earlier run are seen (and cleared when gone) through this filter.
    const filters = [...this.handlers.keys(), this.homeAssistantStatusTopic, `${this.settings.discoveryPrefix}/device/+/config`];
    if (!(await this.subscribeOn(client, filters))) return;
    this.queue.retain(this.availabilityTopic, 'online', 'state');
    this.queue.resendAll();
  }

  private onError(client: MqttClient, err: Error & { code?: unknown }): void {
    this.lastError = this.scrub(err.message);
    const current = this.connection;
    if (current.kind !== 'connecting' || current.client !== client) return;
    // A broker without MQTT 5 refuses the connection: the next attempt speaks 3.1.1 (the packet guard still holds).
    if (this.protocolVersion === 5 && typeof err.code === 'number' && UNSUPPORTED_VERSION.has(err.code)) {
      this.protocolVersion = 4;
      this.options.logger.warn({ broker: this.broker }, 'mqtt: the broker does not speak MQTT 5; using 3.1.1');
    }
  }

  private async subscribeOn(client: MqttClient, filters: string[]): Promise<boolean> {
    try {
      await this.call(client.subscribeAsync(filters, { qos: 1 }), 'subscribing');
      return true;
    } catch (err) {
      // Without its subscriptions the bridge would look connected and ignore every command: start over.
      this.lastError = this.scrub(err instanceof Error ? err.message : String(err));
      client.end(true);
      return false;
    }
  }

  private onClosed(client: MqttClient): void {
    const current = this.connection;
    if ((current.kind !== 'connecting' && current.kind !== 'connected') || current.client !== client) return;
    client.removeAllListeners();
    client.on('error', () => undefined);
    client.end(true);
    const failures = current.kind === 'connecting' ? current.failures : 0;
    const downSince = current.kind === 'connecting' ? current.downSince : this.options.clock.now();
    if (current.kind === 'connected') this.lastError ??= 'the connection to the broker was lost';
    if (current.kind === 'connected') this.options.logger.warn({ broker: this.broker, err: this.lastError }, 'mqtt: lost the broker connection');
    this.fail(failures, downSince, undefined);
  }

  private fail(failures: number, downSince: number, err: unknown): void {
    if (this.connection.kind === 'stopped') return;
    if (err !== undefined) this.lastError = this.scrub(err instanceof Error ? err.message : String(err));
    const { reconnectMinMs, reconnectMaxMs } = this.settings;
    const delay = Math.min(reconnectMaxMs, reconnectMinMs * 2 ** Math.min(failures, 20));
    const timer = this.options.clock.setTimer(() => {
      if (this.connection.kind === 'backingOff') void this.connect(failures + 1, downSince);
    }, delay);
    this.moveTo({ kind: 'backingOff', timer, failures, downSince });
    this.options.logger.warn({ broker: this.broker, err: this.lastError, retryInMs: delay }, 'mqtt: the broker cannot be reached; trying again');
  }

  private async onMessage(topic: string, payload: Buffer, retained: boolean): Promise<void> {
    const prefix = this.settings.discoveryPrefix;
    if (topic === this.homeAssistantStatusTopic) {
      // A retained birth message is not an announcement: everything was published at connect anyway.
      if (!retained && payload.length === 'online'.length && payload.toString('utf8') === 'online') this.queue.resendAll();
      return;
    }
    if (topic.startsWith(`${prefix}/device/`) && topic.endsWith('/config')) {
      const id = topic.slice(prefix.length + '/device/'.length, -'/config'.length);
      if (retained && payload.length > 0 && id.startsWith(this.idPrefix) && !this.devices.has(id)) this.removeDevice(id);
    }
    for (const [filter, handler] of this.handlers) {
      if (!topicMatches(filter, topic)) continue;
      try {
        await handler(topic, payload);
      } catch (err) {
        this.options.logger.error({ err, topic }, 'mqtt: a message handler failed; the bridge goes on');
      }
    }
  }

  private async send(topic: string, payload: string, retain: boolean): Promise<void> {
    const current = this.connection;
    if (current.kind !== 'connected') throw new Error('not connected');
    await this.call(current.client.publishAsync(topic, payload, { qos: 1, retain }), `publishing to ${topic}`);
  }

  private call<T>(promise: Promise<T>, what: string): Promise<T> {
    return withTimeout(this.options.clock, promise, this.callTimeoutMs, `mqtt: ${what}`);
  }

  /** The password never reaches /health or a log line, whatever a library error says. */
  private scrub(text: string): string {
    const { password } = this.settings;
    return password ? text.split(password).join('***') : text;
  }
}

/** MQTT topic filter matching: `+` one level, `#` the rest. */
export function topicMatches(filter: string, topic: string): boolean {
  const f = filter.split('/');
  const t = topic.split('/');
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '#') return true;
    if (i >= t.length || (f[i] !== '+' && f[i] !== t[i])) return false;
  }
  return f.length === t.length;
}
