import { AppError, TimeoutError, withTimeout, type Clock, type Logger } from '@homeops/common';
import { LanCallFailed, type CloudEvent, type DeviceTransport } from '../../domain/device-cloud.js';
import type { DeviceEntry } from './meross-device-entry.js';
import { lanEncryptionKey } from './meross-lan-crypto.js';
import { LanCallError, signedMessage, WRONG_KEY_CODE, type MerossLanHttp } from './meross-lan-http.js';
import { LanVariants, type LanVariant } from './meross-lan-variants.js';
import type { LanLinks } from './meross-lan-links.js';
import { replyErrorCode } from './meross-payloads.js';
import type { SecretRedactor } from './meross-secrets.js';

/** One request to a device. */
export interface DeviceRequest {
  method: 'GET' | 'SET';
  namespace: string;
  payload: unknown;
}

interface MessengerDeps {
  links: LanLinks;
  http: MerossLanHttp;
  /** The account key that signs LAN messages: the session's, else the one kept with the stored list; null before either. */
  key: () => string | null;
  /** The port of a learnt address that names none (real devices: 80). */
  lanPort: number;
  commandTimeoutMs: number;
  clock: Clock;
  redactor: SecretRedactor;
  log: Logger;
  emit: (event: CloudEvent) => void;
  /** The cloud command channel to the device is up (a session and its broker). */
  cloudReady: (entry: DeviceEntry) => boolean;
  /** Throws what a cloud message to the device would meet now (session down, offline, channel down). */
  assertCloudRoute: (entry: DeviceEntry) => void;
  /** The device's link changed (answering, failing, refused, a new address): describe it again. */
  onLinkChange: (entry: DeviceEntry) => void;
  /** Something worth keeping for the next start was learnt (an address, a MAC). */
  onLearned: () => void;
}

/** 409 with the spec's exact error text; the reason goes into details. */
export function notControllable(reason: string): AppError {
  return new AppError('DEVICE_NOT_CONTROLLABLE', undefined, { details: [{ path: 'device', message: reason }] });
}

/**
 * Sends each message to a device the way its link says: POST /config on its LAN address (signed with the account key,
 * encrypted where the device wants it, never counted against the cloud budget), or through the cloud (MQTT, the
 * library's device object). A LAN call that fails marks the link and fails with LanCallFailed, so the service admits a
 * cloud retry; every System.All answer, whichever way it came, tells the device's current address. Plain or
 * encrypted: as LanVariants says for the device.
 */
export class MerossMessenger {
  private readonly variants: LanVariants;

  constructor(private readonly deps: MessengerDeps) {
    this.variants = new LanVariants(deps.log);
  }

  /** What the next message to the device takes; `forPoll`: a failing address is tried again at once. */
  transportOf(entry: DeviceEntry, forPoll = false): DeviceTransport {
    const cloudReady = this.deps.cloudReady(entry);
    if (!this.lanPossible(entry)) return cloudReady ? 'cloud' : 'unreachable';
    return this.deps.links.transport(entry.def.uuid, cloudReady, forPoll);
  }

  /** One request; `lanOnly` never falls to the cloud (polling). */
  async send(entry: DeviceEntry, what: string, request: DeviceRequest, lanOnly = false): Promise<unknown> {
    const transport = this.transportOf(entry, lanOnly);
    let payload: unknown;
    if (transport === 'lan') payload = await this.sendLan(entry, what, request);
    else if (lanOnly) throw notControllable(`device ${entry.def.uuid} has no LAN address that answers`);
    else {
      this.deps.assertCloudRoute(entry);
      payload = await this.sendCloud(entry, what, request);
    }
    if (request.namespace === 'Appliance.System.All') this.learnFrom(entry, payload);
    return payload;
  }

  /**
   * Several GETs over the LAN in as few requests as the device allows (Appliance.Control.Multiple with its maxCmdNum);
   * one by one where it declares none. Answers by namespace; a namespace the device left out is missing.
   */
  async readMany(entry: DeviceEntry, requests: DeviceRequest[], maxPerMessage: number | null): Promise<Map<string, unknown>> {
    const answers = new Map<string, unknown>();
    if (!maxPerMessage || maxPerMessage < 2 || requests.length < 2) {
      for (const [i, r] of requests.entries()) {
        try {
          answers.set(r.namespace, await this.send(entry, `reading ${r.namespace}`, r, true));
        } catch (err) {
          // As in a Multiple: a namespace after the first that the device answers with ERROR is left out, not the poll.
          if (i === 0 || !(err instanceof AppError && err.code === 'CLOUD_ERROR')) throw err;
        }
      }
      return answers;
    }
    for (let i = 0; i < requests.length; i += maxPerMessage) {
      const chunk = requests.slice(i, i + maxPerMessage);
      const multiple = chunk.map((r) => ({ header: { messageId: `${i}-${r.namespace}`, method: r.method, namespace: r.namespace }, payload: r.payload }));
      const payload = await this.send(
        entry,
        'reading several namespaces',
        { method: 'SET', namespace: 'Appliance.Control.Multiple', payload: { multiple } },
        true,
      );
      for (const answer of listOf((payload as { multiple?: unknown } | null)?.multiple)) {
        const header = (answer as { header?: { namespace?: unknown; method?: unknown } }).header;
        if (typeof header?.namespace !== 'string' || header.method === 'ERROR') continue;
        const body = (answer as { payload?: unknown }).payload;
        answers.set(header.namespace, body);
        if (header.namespace === 'Appliance.System.All') this.learnFrom(entry, body);
      }
    }
    return answers;
  }

  /** An address and MAC from a System.All answer; `innerIp` may carry a port (else the configured one). */
  learnFrom(entry: DeviceEntry, payload: unknown): void {
    const system = (payload as { all?: { system?: { firmware?: Record<string, unknown>; hardware?: Record<string, unknown> } } } | null)?.all?.system;
    const innerIp = system?.firmware?.innerIp;
    const mac = system?.hardware?.macAddress;
    let learnt = false;
    if (typeof mac === 'string' && mac && mac !== entry.mac) {
      entry.mac = mac;
      learnt = true;
    }
    if (typeof innerIp === 'string' && innerIp) {
      const address = innerIp.includes(':') || this.deps.lanPort === 80 ? innerIp : `${innerIp}:${this.deps.lanPort}`;
      if (this.deps.links.learn(entry.def.uuid, address)) {
        this.deps.log.info({ uuid: entry.def.uuid, address }, 'learnt the LAN address of a device');
        learnt = true;
      }
    }
    if (!learnt) return;
    this.deps.onLinkChange(entry);
    this.deps.onLearned();
  }

  /** The LAN variant the device reads. */
  variantOf(entry: DeviceEntry): LanVariant {
    return this.variants.of(entry);
  }

  private lanPossible(entry: DeviceEntry): boolean {
    return this.deps.links.enabled && this.deps.key() !== null && this.variants.possible(entry);
  }

  private async sendLan(entry: DeviceEntry, what: string, request: DeviceRequest): Promise<unknown> {
    const uuid = entry.def.uuid;
    const link = this.deps.links.state(uuid);
    const key = this.deps.key();
    if (link.kind === 'unknown' || key === null) throw notControllable(`device ${uuid} has no LAN address`);
    let payload: unknown;
    try {
      payload = await this.variants.call(entry, (variant) => this.callLan(entry, link.address, key, request, variant));
    } catch (err) {
      throw this.lanFailure(entry, what, err);
    }
    if (this.deps.links.answered(uuid)) this.deps.onLinkChange(entry);
    return payload;
  }

  /** One LAN call in one variant; every message that reached the device counts as sent. */
  private async callLan(entry: DeviceEntry, address: string, key: string, request: DeviceRequest, variant: LanVariant): Promise<unknown> {
    const uuid = entry.def.uuid;
    const message = signedMessage(key, address, request.method, request.namespace, request.payload, this.deps.clock.now());
    const encryption = variant === 'encrypted' && entry.mac ? lanEncryptionKey(uuid, key, entry.mac) : null;
    const sent = () => this.deps.emit({ type: 'sent', via: 'lan', what: request.namespace });
    try {
      const payload = await this.deps.http.call(address, message, encryption);
      sent();
      return payload;
    } catch (err) {
      // A connection that never opened reached no device.
      if (!(err instanceof LanCallError && err.kind === 'network')) sent();
      throw err;
    }
  }

  private lanFailure(entry: DeviceEntry, what: string, err: unknown): Error {
    const uuid = entry.def.uuid;
    const failure = err instanceof LanCallError ? err : new LanCallError('network', null, 'connection failed');
    if (failure.kind === 'device-error') {
      // The device read the message and refused it: the LAN works; the answer is the device's, as over the cloud.
      if (this.deps.links.answered(uuid)) this.deps.onLinkChange(entry);
      return new AppError('CLOUD_ERROR', `Device ${uuid} answered ERROR (code ${failure.code ?? 'unknown'}) to ${what}`);
    }
    if (failure.kind === 'refused-key') {
      if (this.deps.links.refuse(uuid, 'key')) {
        this.deps.log.warn({ uuid }, 'the device refused the account key over the LAN (5001); it goes through the cloud from now on');
        this.deps.onLinkChange(entry);
      }
      return new LanCallFailed(uuid, `it refused the account key: ${WRONG_KEY_CODE}`, {
        message: `it answered ERROR ${WRONG_KEY_CODE} (the message is signed with another key than its own: it is bound to another Meross account)`,
        solution: 'Sign in with the Meross account the device is bound to, or pair the device with this account again in the Meross app',
      });
    }
    const before = this.deps.links.state(uuid).kind;
    this.deps.links.failed(uuid, failure.message);
    if (before !== 'failing')
      this.deps.log.info({ uuid, reason: failure.message }, 'a device did not answer over the LAN; the cloud carries its messages for now');
    this.deps.onLinkChange(entry);
    return new LanCallFailed(uuid, failure.message);
  }

  /** One MQTT request through the library, bounded by our timeout; an ERROR reply is a failure. */
  private async sendCloud(entry: DeviceEntry, what: string, request: DeviceRequest): Promise<unknown> {
    const uuid = entry.def.uuid;
    const object = entry.object;
    if (!object) throw notControllable(`The command channel (MQTT) to device ${uuid} is not connected`);
    const work = new Promise<unknown>((resolve, reject) => {
      object.publishMessage(request.method, request.namespace, request.payload, (err, payload) => (err ? reject(err) : resolve(payload)));
    });
    let payload: unknown;
    const timeoutMs = this.deps.commandTimeoutMs;
    try {
      payload = await withTimeout(this.deps.clock, work, timeoutMs, what);
    } catch (err) {
      if (err instanceof TimeoutError || (err instanceof Error && err.message === 'Timeout')) {
        throw new AppError('CLOUD_TIMEOUT', `Device ${uuid} did not answer ${what} within ${timeoutMs} ms`);
      }
      if (err instanceof Error && err.message.includes('no data connection')) {
        throw notControllable(`The command channel (MQTT) to device ${uuid} is not connected`);
      }
      throw new AppError('CLOUD_ERROR', `Device ${uuid}: ${what} failed (${this.deps.redactor.describe(err)})`);
    }
    const code = replyErrorCode(payload);
    if (code !== null) throw new AppError('CLOUD_ERROR', `Device ${uuid} answered ERROR (code ${code}) to ${what}`);
    return payload;
  }
}

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
}
