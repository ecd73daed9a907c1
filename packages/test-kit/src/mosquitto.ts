import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { recordChild } from './child-ledger.js';
import { watchChild } from './child-watch.js';
import { freePort } from './service-process.js';
import { eventually } from './wait.js';
import { connectAsync, type IClientOptions, type MqttClient } from 'mqtt';

/** Debian's broker; `.ci/run` installs the `mosquitto` package when it is missing. */
export const MOSQUITTO = process.env.MOSQUITTO_PATH ?? '/usr/sbin/mosquitto';
const MOSQUITTO_PASSWD = '/usr/bin/mosquitto_passwd';
export const hasMosquittoPasswd = existsSync(MOSQUITTO_PASSWD);

/** How a test broker is started: anonymous or with one user; plain MQTT or TLS with the given server certificate. */
export interface MosquittoOptions {
  user?: { name: string; password: string };
  /** PEM files of the broker's certificate and key (TestPki.issue(['127.0.0.1'])): the listener speaks mqtts://. */
  tls?: { certFile: string; keyFile: string };
}

/** A throwaway Mosquitto on a free loopback port, anonymous or with one user from a password file, plain or TLS. */
export class Mosquitto {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  output = '';

  private constructor(
    readonly port: number,
    private readonly dir: string,
    private readonly tls: boolean,
  ) {}

  static async start(options: MosquittoOptions = {}): Promise<Mosquitto> {
    const dir = mkdtempSync(join(tmpdir(), 'mosquitto-'));
    const port = await freePort();
    const lines = [`listener ${port} 127.0.0.1`, 'persistence false', 'log_dest stdout', 'log_type error', 'log_type warning'];
    if (options.tls) lines.push(`certfile ${options.tls.certFile}`, `keyfile ${options.tls.keyFile}`);
    // Started as root, Mosquitto 2 switches to the `mosquitto` user, which could not read this folder.
    if (process.getuid?.() === 0) lines.push(`user ${userInfo().username}`);
    if (options.user) {
      const file = join(dir, 'passwords');
      execFileSync(MOSQUITTO_PASSWD, ['-b', '-c', file, options.user.name, options.user.password]);
      lines.push('allow_anonymous false', `password_file ${file}`);
    } else {
      lines.push('allow_anonymous true');
    }
    writeFileSync(join(dir, 'mosquitto.conf'), `${lines.join('\n')}\n`);
    const broker = new Mosquitto(port, dir, options.tls !== undefined);
    await broker.run();
    return broker;
  }

  get url(): string {
    return `${this.tls ? 'mqtts' : 'mqtt'}://127.0.0.1:${this.port}`;
  }

  /** Starts the broker process (again, on the same port) and waits until it accepts connections. */
  async run(): Promise<void> {
    const child = spawn(MOSQUITTO, ['-c', join(this.dir, 'mosquitto.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
    recordChild(child, join(this.dir, 'mosquitto.conf'));
    this.exited = watchChild(child, (text) => (this.output += text)).then(() => undefined);
    this.child = child;
    await eventually(
      () => {
        if (child.exitCode !== null) throw new Error(`mosquitto exited: ${this.output}`);
        return canConnect(this.port);
      },
      { what: `mosquitto on port ${this.port}`, timeoutMs: 10_000 },
    );
  }

  /** Kills the broker by its pid and waits for it to be gone (the port is free again). */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    if (child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
    await this.exited;
  }

  async close(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/** One message a test client saw. */
export interface SeenMessage {
  topic: string;
  payload: string;
  retain: boolean;
}

/** A test's own MQTT client (Home Assistant's side): records what it receives on `filters`, publishes. */
export class MqttRecorder {
  readonly messages: SeenMessage[] = [];

  private constructor(readonly client: MqttClient) {
    client.on('message', (topic, payload, packet) => this.messages.push({ topic, payload: payload.toString('utf8'), retain: packet.retain }));
  }

  static async connect(url: string, filters: string[], options: IClientOptions = {}): Promise<MqttRecorder> {
    const client = await connectAsync(url, { reconnectPeriod: 0, connectTimeout: 5_000, ...options });
    const recorder = new MqttRecorder(client);
    await client.subscribeAsync(filters, { qos: 1 });
    return recorder;
  }

  on(topic: string): SeenMessage[] {
    return this.messages.filter((m) => m.topic === topic);
  }

  /** The last message seen on `topic`. */
  last(topic: string): SeenMessage | undefined {
    return this.on(topic).at(-1);
  }

  /** Waits for a message on `topic` that passes `check`; resolves it. */
  waitFor(topic: string, check: (m: SeenMessage) => boolean = () => true, timeoutMs = 10_000): Promise<SeenMessage> {
    return eventually(() => this.on(topic).find(check), { what: `a message on ${topic}`, timeoutMs });
  }

  async publish(topic: string, payload: string | Buffer, retain = false): Promise<void> {
    await this.client.publishAsync(topic, payload, { qos: 1, retain });
  }

  clear(): void {
    this.messages.length = 0;
  }

  async close(): Promise<void> {
    await this.client.endAsync(true);
  }
}
