import { createServer, type Server } from 'node:tls';
import type { Socket } from 'node:net';
import aedes from 'aedes';
import type { AuthenticateError, Client, PublishPacket } from 'aedes';
import { deviceMessage, receiveRequest, type DeviceContext, type MerossMessage } from './device-answers.js';
import type { EmulatedDevice } from './emulated-device.js';
import { md5, type EmulatedAccount } from './emulator-api.js';

/** Where apps publish requests to a device. */
const APPLIANCE_TOPIC = /^\/appliance\/([^/]+)\/subscribe$/;

/** The port meross-cloud hard-codes for MQTT. */
export const MQTT_PORT = 2001;

/** One request a device received over MQTT. */
export interface ReceivedRequest {
  uuid: string;
  /** Index of the broker that received it. */
  broker: number;
  method: string;
  namespace: string;
  payload: unknown;
  at: number;
}

/** The MQTTS side of the emulated cloud: authenticates app clients and relays requests to its devices and their answers back. */
export class EmulatorBroker {
  readonly received: ReceivedRequest[] = [];
  connections = 0;
  /** Connection attempts, refused ones included. */
  attempts = 0;
  refusedConnections = 0;
  /** While set, new connections are refused at CONNACK: 3 'Server unavailable', 5 'Not authorized'. */
  refuseConnections: 3 | 5 | null = null;
  /** How long the broker takes to acknowledge a subscription, as a busy real one may. */
  subscribeDelayMs = 0;
  private broker: ReturnType<typeof aedes.createBroker> | undefined;
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();

  constructor(
    readonly host: string,
    private readonly tls: { cert: string; key: string },
    private readonly account: EmulatedAccount,
    private readonly devices: Map<string, EmulatedDevice>,
    /** This broker's index: it serves only the devices connected to it. */
    readonly index = 0,
  ) {}

  /** App clients connected right now. */
  get connectedClients(): number {
    return this.broker?.connectedClients ?? 0;
  }

  get running(): boolean {
    return this.server !== undefined;
  }

  async listen(): Promise<void> {
    const broker = aedes.createBroker({
      authenticate: (client, username, password, done) => this.authenticate(client, username, password, done),
      authorizeSubscribe: (_client, sub, done) => {
        const answer = () => done(this.mayRead(sub.topic) ? null : new Error('not allowed'), sub);
        if (this.subscribeDelayMs > 0) setTimeout(answer, this.subscribeDelayMs);
        else answer();
      },
      authorizePublish: (client, packet, done) => done(client === null || APPLIANCE_TOPIC.test(packet.topic) ? null : new Error('not allowed')),
    });
    broker.on('publish', (packet, client) => {
      if (client) this.onRequest(packet);
    });
    broker.on('client', () => (this.connections += 1));
    const server = createServer(this.tls, (socket) => broker.handle(socket));
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(MQTT_PORT, this.host, () => resolve());
    });
    this.broker = broker;
    this.server = server;
  }

  async close(): Promise<void> {
    const { broker, server } = this;
    this.broker = undefined;
    this.server = undefined;
    if (!server || !broker) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => broker.close(() => resolve()));
    await closed;
  }

  /** A message from a device to the account's app topic, as the real cloud relays it; none from a device off the cloud. */
  push(uuid: string, namespace: string, payload: unknown): void {
    if (this.devices.get(uuid)?.cloudConnected === false) return;
    this.publish(`/app/${this.account.userId}/subscribe`, deviceMessage(uuid, this.account.key, namespace, 'PUSH', payload, randomId()));
  }

  /** The device's presence as the cloud announces it (Appliance.System.Online), also when the device itself is off the cloud. */
  pushOnline(uuid: string, status: number): void {
    const payload = { online: { status } };
    this.publish(`/app/${this.account.userId}/subscribe`, deviceMessage(uuid, this.account.key, 'Appliance.System.Online', 'PUSH', payload, randomId()));
  }

  /** Any text on the account's app topic, as a broken or hostile cloud might send it. */
  pushRaw(text: string): void {
    const packet = { cmd: 'publish', topic: `/app/${this.account.userId}/subscribe`, payload: Buffer.from(text), qos: 0, retain: false, dup: false } as const;
    this.broker?.publish(packet, () => undefined);
  }

  private authenticate(
    _client: Client,
    username: string | undefined,
    password: Buffer | undefined,
    done: (error: AuthenticateError | null, success: boolean | null) => void,
  ): void {
    this.attempts += 1;
    if (this.refuseConnections !== null) {
      this.refusedConnections += 1;
      done(Object.assign(new Error('refused'), { returnCode: this.refuseConnections }) as AuthenticateError, null);
      return;
    }
    const { userId, key } = this.account;
    if (username === userId && password?.toString() === md5(`${userId}${key}`)) return done(null, true);
    const error = Object.assign(new Error('bad username or password'), { returnCode: 4 }) as AuthenticateError;
    done(error, null);
  }

  private mayRead(topic: string): boolean {
    const { userId } = this.account;
    return topic === `/app/${userId}/subscribe` || (topic.startsWith(`/app/${userId}-`) && topic.endsWith('/subscribe'));
  }

  private deviceOf(topic: string): EmulatedDevice | undefined {
    const uuid = APPLIANCE_TOPIC.exec(topic)?.[1];
    const device = uuid === undefined ? undefined : this.devices.get(uuid);
    // A device is connected to one broker only: a request published on another one reaches nobody.
    return device?.broker === this.index ? device : undefined;
  }

  private onRequest(packet: PublishPacket): void {
    const device = this.deviceOf(packet.topic);
    if (!device) return;
    let request: MerossMessage;
    try {
      request = JSON.parse(packet.payload.toString()) as MerossMessage;
    } catch {
      return;
    }
    const { header, payload } = request;
    this.received.push({ uuid: device.uuid, broker: this.index, method: header.method, namespace: header.namespace, payload, at: Date.now() });
    // A device off the cloud never hears it; the message still reached the cloud and counts there.
    if (!device.cloudConnected || !header.from?.startsWith('/app/')) return;
    receiveRequest(device, this.contextOf(device), request, (reply) => this.publish(header.from, reply));
  }

  /** What the device answers with: the account, this broker, its pushes through this broker. */
  contextOf(device: EmulatedDevice): DeviceContext {
    return {
      key: this.account.key,
      userId: this.account.userId,
      brokerHost: this.host,
      cloudConnected: device.cloudConnected && this.running,
      push: (namespace, payload) => this.push(device.uuid, namespace, payload),
    };
  }

  private publish(topic: string, message: MerossMessage): void {
    const packet = { cmd: 'publish', topic, payload: Buffer.from(JSON.stringify(message)), qos: 0, retain: false, dup: false } as const;
    this.broker?.publish(packet, () => undefined);
  }
}

function randomId(): string {
  return md5(`${Math.random()}${Date.now()}`);
}
