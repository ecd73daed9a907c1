import { createHash, randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import type { Clock } from '@homeops/common';
import { decryptLanBody, encryptLanBody } from './meross-lan-crypto.js';

const MAX_BODY_BYTES = 1024 * 1024;

/** Meross's answer to a message signed with another key. */
export const WRONG_KEY_CODE = 5001;

/**
 * Why a LAN call failed: not reached or no answer in time (the device may be elsewhere), the connection reset once the
 * message was sent (what a device does with a plain message it wants encrypted), or an answer we cannot use.
 */
export type LanFailureKind = 'network' | 'reset' | 'timeout' | 'http' | 'malformed' | 'refused-key' | 'device-error';

/** A failed LAN call; `code` is the device's ERROR code where it answered one. */
export class LanCallError extends Error {
  constructor(
    readonly kind: LanFailureKind,
    readonly code: number | null,
    message: string,
  ) {
    super(message);
    this.name = 'LanCallError';
  }
}

/**
 * The device took the message but could not read it in the variant it came in (plain or encrypted): it reset the
 * connection, answered an HTTP error, or answered something that is not a message. The other variant may work.
 */
export function isUnreadableVariant(err: unknown): boolean {
  return err instanceof LanCallError && (err.kind === 'reset' || err.kind === 'http' || err.kind === 'malformed');
}

/** One message as a Meross device takes it over HTTP (the same JSON as over MQTT). */
export interface LanMessage {
  header: {
    messageId: string;
    namespace: string;
    method: 'GET' | 'SET';
    payloadVersion: 1;
    from: string;
    timestamp: number;
    timestampMs: number;
    sign: string;
  };
  payload: unknown;
}

const md5 = (text: string) => createHash('md5').update(text).digest('hex');

/** A message signed with the account key: `sign = md5(messageId + key + timestamp)`, timestamp in seconds. */
export function signedMessage(key: string, address: string, method: 'GET' | 'SET', namespace: string, payload: unknown, now: number): LanMessage {
  const messageId = md5(randomBytes(16).toString('hex'));
  const timestamp = Math.floor(now / 1000);
  return {
    header: {
      messageId,
      namespace,
      method,
      payloadVersion: 1,
      from: `http://${address}/config`,
      timestamp,
      timestampMs: now % 1000,
      sign: md5(`${messageId}${key}${timestamp}`),
    },
    payload,
  };
}

/** `host` or `host:port` (real devices listen on 80; the emulator's on a port of their own), or null when it is neither. */
export function parseLanAddress(text: string): { host: string; port: number } | null {
  const match = /^([0-9A-Za-z.-]+)(?::(\d{1,5}))?$/.exec(text.trim());
  if (!match) return null;
  const port = match[2] === undefined ? 80 : Number(match[2]);
  return port >= 1 && port <= 65_535 ? { host: match[1]!, port } : null;
}

/** What one LAN call reports to the adapter's log: never the key, the sign or a body. */
export interface LanCallRecord {
  address: string;
  namespace: string;
  outcome: string;
  ms: number;
}

/**
 * POST http://<address>/config to one device, with our own deadline on the whole call (on the injected clock): the
 * signed message out, the device's answer back. An ERROR answer fails as `refused-key` (5001, the device has another
 * key) or `device-error`; everything else that is not a JSON answer fails as not reached.
 */
export class MerossLanHttp {
  /** Keeps one connection per device open between calls, as a phone app does. */
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 2, maxFreeSockets: 1, timeout: 30_000 });

  constructor(
    private readonly timeoutMs: number,
    private readonly clock: Clock,
    private readonly record: (call: LanCallRecord) => void,
  ) {}

  /** Sends one message; with `encryptionKey` (a device that declares Appliance.Encrypt.ECDHE) both ways encrypted. */
  async call(address: string, message: LanMessage, encryptionKey: Buffer | null = null): Promise<unknown> {
    const started = this.clock.now();
    const namespace = message.header.namespace;
    try {
      const json = JSON.stringify(message);
      const text = await this.post(address, encryptionKey ? encryptLanBody(json, encryptionKey) : json);
      const answer = parseAnswer(text, encryptionKey);
      const payload = answerPayload(answer, message.header.messageId);
      this.record({ address, namespace, outcome: 'ok', ms: this.clock.now() - started });
      return payload;
    } catch (err) {
      const failure = err instanceof LanCallError ? err : new LanCallError('network', null, 'connection failed');
      this.record({ address, namespace, outcome: failure.kind, ms: this.clock.now() - started });
      throw failure;
    }
  }

  /** Closes the kept connections (at stop). */
  close(): void {
    this.agent.destroy();
  }

  private post(address: string, body: string): Promise<string> {
    const target = parseLanAddress(address);
    if (!target) return Promise.reject(new LanCallError('network', null, `not an address: ${address}`));
    return new Promise((resolve, reject) => {
      let settled = false;
      const finish = (error: LanCallError | null, value = '') => {
        if (settled) return;
        settled = true;
        deadline.cancel();
        if (error) {
          req.destroy();
          reject(error);
        } else resolve(value);
      };
      const req = request(
        {
          host: target.host,
          port: target.port,
          path: '/config',
          method: 'POST',
          agent: this.agent,
          headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_BODY_BYTES) finish(new LanCallError('malformed', null, 'answer too large'));
            else chunks.push(chunk);
          });
          res.on('error', () => finish(new LanCallError('network', null, 'connection lost while reading the answer')));
          res.on('end', () => {
            if (res.statusCode !== 200) return finish(new LanCallError('http', null, `HTTP ${res.statusCode ?? 'without status'}`));
            finish(null, Buffer.concat(chunks).toString('utf8'));
          });
        },
      );
      const deadline = this.clock.setTimer(() => finish(new LanCallError('timeout', null, `no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
      req.on('error', (err: NodeJS.ErrnoException) =>
        finish(new LanCallError(err.code === 'ECONNRESET' ? 'reset' : 'network', null, err.code ?? 'connection failed')),
      );
      req.end(body);
    });
  }
}

/** The answer as JSON: decrypted first where the request was encrypted (a device may still answer an error in plain text). */
function parseAnswer(text: string, encryptionKey: Buffer | null): unknown {
  const attempts = encryptionKey ? [() => decryptLanBody(text, encryptionKey), () => text] : [() => text];
  for (const attempt of attempts) {
    try {
      return JSON.parse(attempt());
    } catch {
      // the next reading, if any
    }
  }
  throw new LanCallError('malformed', null, encryptionKey ? 'the answer is neither encrypted JSON nor JSON' : 'the answer is not JSON');
}

function record(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
}

/** The payload of the device's answer to our message; its ERROR answers as failures. */
function answerPayload(answer: unknown, messageId: string): unknown {
  const header = record(record(answer)?.header);
  if (!header) throw new LanCallError('malformed', null, 'answer without a header');
  const payload = record(answer)?.payload;
  if (header.method === 'ERROR') {
    const code = record(record(payload)?.error)?.code;
    const number = typeof code === 'number' ? code : typeof code === 'string' ? Number(code) : null;
    if (number === WRONG_KEY_CODE) throw new LanCallError('refused-key', WRONG_KEY_CODE, 'the device refused the signature (5001: another account key)');
    throw new LanCallError('device-error', Number.isFinite(number) ? number : null, `the device answered ERROR (code ${String(code ?? 'unknown')})`);
  }
  // A device answers with the messageId it was sent; another one is an answer to something else.
  if (header.messageId !== undefined && header.messageId !== messageId) throw new LanCallError('malformed', null, 'answer to another message');
  return payload ?? {};
}
