import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { receiveRequest, type DeviceContext, type MerossMessage } from './device-answers.js';
import type { EmulatedDevice } from './emulated-device.js';
import { decryptLanBody, encryptLanBody } from './lan-crypto.js';

/** up: the device answers; refused: nothing listens on its address (ECONNREFUSED); hang: it accepts and never answers. */
export type LanReachability = 'up' | 'refused' | 'hang';

/** One request a device received on its /config. */
export interface LanRequest {
  uuid: string;
  /** The address it reached the device on. */
  address: string;
  method: string;
  namespace: string;
  payload: unknown;
  /** It came in the encrypted variant. */
  encrypted: boolean;
  at: number;
}

const MAX_BODY_BYTES = 64 * 1024;

/** One device's HTTP side: POST /config on its own loopback address, on the port every device of the emulator shares. */
class DeviceEndpoint {
  reachability: LanReachability = 'up';
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();

  constructor(
    readonly device: EmulatedDevice,
    private readonly handle: (endpoint: DeviceEndpoint, req: IncomingMessage, res: ServerResponse) => void,
  ) {}

  get listening(): boolean {
    return this.server !== undefined;
  }

  async listen(address: string, port: number): Promise<number> {
    const server = createServer((req, res) => this.handle(this, req, res));
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, address, () => resolve());
    });
    this.server = server;
    this.device.lanAddress = address;
    return (server.address() as AddressInfo).port;
  }

  /** Stops listening and drops the open connections; the address stays the device's. */
  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }
}

/**
 * The LAN side of the emulated devices: each device answers POST /config on its own 127.0.x.y (never 127.0.0.x, the
 * brokers' addresses), all on one port picked at start, since a test cannot bind port 80. The answers come from the
 * same device state as over MQTT (`receiveRequest`), and pushes a LAN command causes go to the device's broker.
 */
export class EmulatorLan {
  readonly received: LanRequest[] = [];
  private readonly endpoints = new Map<string, DeviceEndpoint>();

  private constructor(
    /** The port every device listens on. */
    readonly port: number,
    private readonly contextOf: (device: EmulatedDevice) => DeviceContext,
  ) {}

  static async start(devices: Iterable<EmulatedDevice>, contextOf: (device: EmulatedDevice) => DeviceContext): Promise<EmulatorLan> {
    const lan = new EmulatorLan(await freePort(randomLanAddress()), contextOf);
    try {
      for (const device of devices) await lan.add(device);
    } catch (err) {
      await lan.close();
      throw err;
    }
    return lan;
  }

  /** Puts the device on a free address of its own; returns the address. */
  async add(device: EmulatedDevice): Promise<string> {
    const endpoint = new DeviceEndpoint(device, (e, req, res) => this.handle(e, req, res));
    this.endpoints.set(device.uuid, endpoint);
    return this.bind(endpoint, null);
  }

  async remove(uuid: string): Promise<void> {
    const endpoint = this.endpoints.get(uuid);
    this.endpoints.delete(uuid);
    await endpoint?.close();
  }

  async setReachability(uuid: string, reachability: LanReachability): Promise<void> {
    const endpoint = this.endpoint(uuid);
    endpoint.reachability = reachability;
    if (reachability === 'refused') await endpoint.close();
    else if (!endpoint.listening) await endpoint.listen(endpoint.device.lanAddress!, this.port);
  }

  /** The device takes another address (a new DHCP lease): nothing answers on the old one from now on. */
  async move(uuid: string): Promise<string> {
    const endpoint = this.endpoint(uuid);
    const old = endpoint.device.lanAddress;
    await endpoint.close();
    const address = await this.bind(endpoint, old);
    if (endpoint.reachability === 'refused') await endpoint.close();
    return address;
  }

  /** Requests a device received over the LAN (all devices without a uuid). */
  requestsOf(uuid?: string): LanRequest[] {
    return uuid === undefined ? this.received : this.received.filter((r) => r.uuid === uuid);
  }

  async close(): Promise<void> {
    await Promise.all([...this.endpoints.values()].map((e) => e.close()));
  }

  private endpoint(uuid: string): DeviceEndpoint {
    const endpoint = this.endpoints.get(uuid);
    if (!endpoint) throw new Error(`emulator has no device ${uuid} on the LAN`);
    return endpoint;
  }

  /** Listens on a random address not taken by another device (nor `avoid`); another one when the port is taken there. */
  private async bind(endpoint: DeviceEndpoint, avoid: string | null): Promise<string> {
    const taken = new Set([avoid, ...[...this.endpoints.values()].filter((e) => e !== endpoint).map((e) => e.device.lanAddress)]);
    for (let attempt = 1; ; attempt += 1) {
      const address = randomLanAddress();
      if (taken.has(address)) continue;
      try {
        await endpoint.listen(address, this.port);
        return address;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 20) throw err;
      }
    }
  }

  private handle(endpoint: DeviceEndpoint, req: IncomingMessage, res: ServerResponse): void {
    // A device that hangs takes the connection and the request and never answers; closing the emulator drops it.
    if (endpoint.reachability === 'hang') return;
    if (req.method !== 'POST' || req.url !== '/config') {
      res.writeHead(404).end();
      return;
    }
    readBody(req).then(
      (body) => this.serve(endpoint.device, body, req, res),
      () => req.socket.destroy(),
    );
  }

  /**
   * As meross_lan's emulator does: a device with encryption takes a plain message only for its abilities and resets
   * the connection for anything else; an encrypted one is answered encrypted; what it cannot read resets it too. A
   * device without encryption answers a body that is not a message (an encrypted one) with HTTP 400.
   */
  private serve(device: EmulatedDevice, body: string, req: IncomingMessage, res: ServerResponse): void {
    const context = this.contextOf(device);
    const key = device.encryptionKey(context.key);
    const plain = parseMessage(body);
    let message = plain;
    if (key && !plain) message = parseMessage(decryptOrEmpty(body, key));
    if (!message) return key ? resetConnection(req) : void res.writeHead(400).end();
    const encrypted = message !== plain;
    const { header, payload } = message;
    this.received.push({
      uuid: device.uuid,
      address: device.lanAddress ?? '',
      method: header.method,
      namespace: header.namespace,
      payload,
      encrypted,
      at: Date.now(),
    });
    if (key && !encrypted && header.namespace !== 'Appliance.System.Ability') return resetConnection(req);
    receiveRequest(device, context, message, (reply) => {
      if (res.writableEnded || res.destroyed) return;
      const json = JSON.stringify(reply);
      res.writeHead(200, { 'content-type': encrypted ? 'application/octet-stream' : 'application/json' }).end(encrypted ? encryptLanBody(json, key!) : json);
    });
  }
}

/** An address on the loopback network that no broker uses (those are 127.0.0.x). */
function randomLanAddress(): string {
  return `127.0.${1 + Math.floor(Math.random() * 254)}.${1 + Math.floor(Math.random() * 254)}`;
}

function freePort(address: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, address, () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) reject(new Error('body too large'));
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseMessage(text: string): MerossMessage | undefined {
  try {
    const message = JSON.parse(text) as Partial<MerossMessage> | null;
    const header = message?.header;
    if (!header || typeof header.messageId !== 'string' || typeof header.namespace !== 'string' || typeof header.method !== 'string') return undefined;
    return message as MerossMessage;
  } catch {
    return undefined;
  }
}

function decryptOrEmpty(body: string, key: Buffer): string {
  try {
    return decryptLanBody(body, key);
  } catch {
    return '';
  }
}

function resetConnection(req: IncomingMessage): void {
  req.socket.resetAndDestroy();
}
