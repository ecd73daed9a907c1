import { createServer, type Server } from 'node:tls';
import type { Socket } from 'node:net';
import aedes from 'aedes';
import type { AuthenticateError, Client, PublishPacket } from 'aedes';
import type { EmulatedDevice, EmulatedSubDevice } from './emulated-device.js';
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

interface MerossMessage {
  header: { messageId: string; namespace: string; method: string; from: string; timestamp: number; sign: string };
  payload: Record<string, unknown>;
}

/** The MQTTS side of the emulated cloud: authenticates app clients and answers for the devices. */
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

  /** A message from a device to the account's app topic, as the real cloud relays it. */
  push(uuid: string, namespace: string, payload: unknown): void {
    this.publish(`/app/${this.account.userId}/subscribe`, this.message(uuid, namespace, 'PUSH', payload, randomId()));
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
    if (!device.online || device.upgrading || device.dropReplies || !header.from?.startsWith('/app/')) return;
    const reply = (method: string, body: unknown) => {
      const message = this.message(device.uuid, header.namespace, method, body, header.messageId);
      if (device.replyDelayMs > 0) setTimeout(() => this.publish(header.from, message), device.replyDelayMs);
      else this.publish(header.from, message);
    };
    if (md5(`${header.messageId}${this.account.key}${header.timestamp}`) !== header.sign) {
      return reply('ERROR', { error: { code: 5001, detail: 'sign error' } });
    }
    if (device.errorCode !== null) return reply('ERROR', { error: { code: device.errorCode, detail: 'device error' } });
    const call = `${header.method} ${header.namespace}`;
    if (call === 'GET Appliance.System.All') return reply('GETACK', device.systemAll(this.account.userId, this.host));
    if (call === 'GET Appliance.System.Online') return reply('GETACK', { online: { status: device.onlineStatus } });
    if (call === 'GET Appliance.System.Ability') {
      return reply('GETACK', { payloadVersion: 1, ability: device.abilityPayload() });
    }
    if (call === 'GET Appliance.GarageDoor.State' && device.garageDoor) return reply('GETACK', { state: device.doorStates() });
    if (call === 'SET Appliance.GarageDoor.State' && device.garageDoor) return this.moveDoor(device, payload, reply);
    if (call === 'GET Appliance.RollerShutter.Position' && device.cover) return reply('GETACK', { position: [{ channel: 0, position: device.coverNow() }] });
    if (call === 'GET Appliance.RollerShutter.State' && device.cover) {
      return reply('GETACK', { state: [{ channel: 0, state: device.coverMotion(), stoppedBy: 0, lmTime: Math.floor(Date.now() / 1000) }] });
    }
    if (call === 'SET Appliance.RollerShutter.Position' && device.cover) return this.moveCover(device, payload, reply);
    if (call === 'GET Appliance.Control.Electricity' && device.type === 'mss310') {
      // Units as the plugs send them: mW, decivolts, mA.
      const power = device.isOn(0) ? 42_500 : 300;
      return reply('GETACK', { electricity: { channel: 0, power, voltage: 2305, current: Math.round(power / 230.5) } });
    }
    if (call === 'GET Appliance.Control.ConsumptionX' && device.type === 'mss310') {
      const day = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
      return reply('GETACK', { consumptionx: [2, 0, 1].map((n) => ({ date: day(n), time: Math.floor(Date.now() / 1000), value: 1000 + n * 250 })) });
    }
    if (device.hubDevices.length > 0 && header.namespace.startsWith('Appliance.Hub.')) return this.hub(device, call, payload, reply);
    if (call === 'SET Appliance.Control.Light' && device.lightCapacity !== null) {
      // As meross_lan observed: a light command also turns the light on.
      const light = payload.light as Partial<Record<'luminance' | 'temperature' | 'rgb', unknown>> | undefined;
      for (const key of ['luminance', 'temperature', 'rgb'] as const) if (typeof light?.[key] === 'number') device.light[key] = light[key];
      reply('SETACK', {});
      this.push(device.uuid, 'Appliance.Control.Light', { light: device.lightState() });
      if (!device.isOn(0)) {
        device.set(0, true);
        this.push(device.uuid, 'Appliance.Control.ToggleX', { togglex: [{ channel: 0, onoff: 1, lmTime: Math.floor(Date.now() / 1000) }] });
      }
      return;
    }
    if (call === 'SET Appliance.Control.ToggleX' && device.protocol === 'togglex') {
      const entries = ([] as unknown[]).concat(payload.togglex ?? []) as Array<{ channel?: unknown; onoff?: unknown }>;
      const ok = entries.length > 0 && entries.every((e) => typeof e.channel === 'number' && device.set(e.channel, e.onoff === 1));
      return ok ? reply('SETACK', {}) : reply('ERROR', { error: { code: 5000, detail: 'bad channel' } });
    }
    if (call === 'SET Appliance.Control.Toggle' && device.protocol === 'toggle') {
      device.set(0, (payload.toggle as { onoff?: unknown } | undefined)?.onoff === 1);
      return reply('SETACK', {});
    }
    reply('ERROR', { error: { code: 5000, detail: 'unsupported' } });
  }

  /** As an opener does: answers at once with where the door was, moves it, and pushes where it ends up. */
  private moveDoor(device: EmulatedDevice, payload: Record<string, unknown>, reply: (method: string, body: unknown) => void): void {
    const request = payload.state as { channel?: unknown; open?: unknown } | undefined;
    const channel = typeof request?.channel === 'number' ? request.channel : -1;
    const open = request?.open === 1;
    const before = device.doorStates().find((d) => d.channel === channel);
    if (!before) return reply('ERROR', { error: { code: 5000, detail: 'bad channel' } });
    reply('SETACK', { state: { ...before, execute: 1 } });
    if ((before.open === 1) === open) return;
    setTimeout(() => {
      device.setDoor(channel, open);
      this.push(device.uuid, 'Appliance.GarageDoor.State', { state: device.doorStates().filter((d) => d.channel === channel) });
    }, device.doorTravelMs);
  }

  /** As a roller shutter does: SETACK at once, then State and Position pushes as it starts, stops or arrives. */
  private moveCover(device: EmulatedDevice, payload: Record<string, unknown>, reply: (method: string, body: unknown) => void): void {
    const request = payload.position as { channel?: unknown; position?: unknown } | undefined;
    const target = typeof request?.position === 'number' ? request.position : Number.NaN;
    if (request?.channel !== 0 || !(target === -1 || (target >= 0 && target <= 100))) return reply('ERROR', { error: { code: 5000, detail: 'bad position' } });
    reply('SETACK', {});
    const pushState = () => {
      const lmTime = Math.floor(Date.now() / 1000);
      this.push(device.uuid, 'Appliance.RollerShutter.State', { state: [{ channel: 0, state: device.coverMotion(), stoppedBy: 0, lmTime }] });
    };
    const pushPosition = () => this.push(device.uuid, 'Appliance.RollerShutter.Position', { position: [{ channel: 0, position: device.coverPosition }] });
    const here = device.coverNow();
    if (device.coverRun) clearTimeout(device.coverRun.timer);
    device.coverRun = null;
    device.coverPosition = here;
    if (target === -1 || target === here) {
      pushState();
      pushPosition();
      return;
    }
    const timer = setTimeout(
      () => {
        device.coverRun = null;
        device.coverPosition = target;
        pushState();
        pushPosition();
      },
      (device.coverTravelMs * Math.abs(target - here)) / 100,
    );
    device.coverRun = { from: here, to: target, startedAt: Date.now(), timer };
    pushState();
  }

  /** A hub's namespaces for the valves and sensors behind it, as meross_lan describes them. */
  private hub(device: EmulatedDevice, call: string, payload: Record<string, unknown>, reply: (method: string, body: unknown) => void): void {
    const valves = device.hubDevices.filter((d) => d.kind === 'valve');
    const sensors = device.hubDevices.filter((d) => d.kind === 'sensor');
    const online = (d: EmulatedSubDevice) => ({ status: d.online ? 1 : 2, lastActiveTime: Math.floor(Date.now() / 1000) });
    const byId = (id: unknown) => device.hubDevices.find((d) => d.id === id);
    if (call === 'GET Appliance.Hub.Mts100.All') {
      return reply('GETACK', {
        all: valves.map((v) => ({
          id: v.id,
          online: online(v),
          togglex: { onoff: v.onoff },
          mode: { state: v.mode },
          temperature: {
            room: v.room,
            currentSet: v.custom,
            custom: v.custom,
            comfort: 240,
            economy: 180,
            away: 120,
            min: 50,
            max: 350,
            heating: 1,
            openWindow: 0,
          },
        })),
      });
    }
    if (call === 'GET Appliance.Hub.Sensor.All') {
      return reply('GETACK', {
        all: sensors.map((s) => ({ id: s.id, online: online(s), temperature: { latest: s.room, max: 400, min: -200 }, humidity: { latest: s.humidity } })),
      });
    }
    if (call === 'GET Appliance.Hub.Battery') return reply('GETACK', { battery: device.hubDevices.map((d) => ({ id: d.id, value: d.battery })) });
    if (call === 'SET Appliance.Hub.ToggleX') {
      for (const t of ([] as Array<{ id?: unknown; onoff?: unknown }>).concat((payload.togglex as never) ?? [])) {
        const valve = byId(t.id);
        if (valve?.kind === 'valve') valve.onoff = t.onoff === 1 ? 1 : 0;
      }
      return reply('SETACK', {});
    }
    if (call === 'SET Appliance.Hub.Mts100.Temperature') {
      const set = ([] as Array<{ id?: unknown; custom?: unknown }>).concat((payload.temperature as never) ?? []);
      for (const t of set) {
        const valve = byId(t.id);
        if (valve?.kind === 'valve' && typeof t.custom === 'number') valve.custom = t.custom;
      }
      return reply('SETACK', { temperature: set });
    }
    if (call === 'SET Appliance.Hub.Mts100.Mode') {
      for (const m of ([] as Array<{ id?: unknown; state?: unknown }>).concat((payload.mode as never) ?? [])) {
        const valve = byId(m.id);
        if (valve?.kind === 'valve' && typeof m.state === 'number') valve.mode = m.state;
      }
      return reply('SETACK', {});
    }
    reply('ERROR', { error: { code: 5000, detail: 'unsupported' } });
  }

  private message(uuid: string, namespace: string, method: string, payload: unknown, messageId: string): MerossMessage {
    const timestamp = Math.floor(Date.now() / 1000);
    return {
      header: {
        messageId,
        namespace,
        method,
        from: `/appliance/${uuid}/publish`,
        timestamp,
        sign: md5(`${messageId}${this.account.key}${timestamp}`),
      },
      payload: payload as Record<string, unknown>,
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
