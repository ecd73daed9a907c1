import { isoNow, systemClock, type Clock, type Timer } from '@homeops/common';
import type { KeyObject } from 'node:crypto';
import {
  DeliveryError,
  type ProviderStatus,
  type PushProvider,
  type PushReceipt,
  type ReceiptApi,
  type ReceiptStatus,
  type SoundList,
} from '../../domain/push-provider.js';
import { ConcurrencyLimit } from '../../domain/concurrency-limit.js';
import { classifyFailure, classifyResponse, parseQuota, type Redact } from './classify-response.js';
import { cancelReceipt, cancelReceiptsByTag, getReceipt, type ApiAccess } from './pushover-api.js';
import { postMessage, resolveEndpoint, type Connection, type PushoverEndpoint } from './pushover-request.js';
import { RecipientKeys } from './recipient-keys.js';
import { DEFAULT_ALIAS, type RecipientMap } from './recipient-map.js';
import { RejectionCircuit } from './rejection-circuit.js';
import { assertSealed } from './seal-fields.js';
import { SoundCatalog } from './sound-catalog.js';
import { toPushoverFields, type PushoverMessage } from './to-pushover-fields.js';

export const DEFAULT_PUSHOVER_API_URL = 'https://api.pushover.net';
/** Pushover asks clients to keep at most 2 connections open at once. */
export const MAX_CONCURRENT_REQUESTS = 2;
/** A request is only started with at least this much (or half the timeout) left before the deadline. */
const MIN_REQUEST_BUDGET_MS = 1000;

/** How to reach Pushover; apiUrl may be any http(s)://host[:port][/prefix] (a proxy, a test server). */
export interface PushoverProviderOptions {
  /** The default key (alias `default`); may be left out when a recipient map names every recipient. */
  userKey?: string | undefined;
  apiToken: string;
  /** Recipient name → user or group key (and devices); see recipient-map.ts. */
  recipients?: RecipientMap | undefined;
  /** Consecutive 4xx answers that open the rejection circuit. Default 5. */
  maxRejections?: number | undefined;
  /** First wait before a validation call may close the circuit (doubling up to an hour). Default 60 s. */
  probeDelayMs?: number | undefined;
  apiUrl?: string | undefined;
  /** Bound on one send, waiting for a free connection included. Default 10 s. */
  timeoutMs?: number | undefined;
  /** Priority 2 default for `retry`, seconds (Pushover minimum 30). Default 60. */
  emergencyRetrySeconds?: number | undefined;
  /** Priority 2 default for `expire`, seconds (Pushover maximum 10800). Default 3600. */
  emergencyExpireSeconds?: number | undefined;
  /** Times deadlines, probes and retries, and dates the status (default the system clock). */
  clock?: Clock | undefined;
  /** The default key's end-to-end encryption key (PROVIDER_ENCRYPTION_KEY): its messages are sent encrypted. */
  encryptionKey?: KeyObject | undefined;
  /** The title of an encrypted message that has none (Pushover's own default would not decrypt). Default `homeops`. */
  appName?: string | undefined;
}

/** The title an encrypted message without one gets. */
export const DEFAULT_APP_NAME = 'homeops';

/**
 * PushProvider over pushover-notifications (messages) and Pushover's validate, receipts and sounds APIs: bounded in
 * time and concurrency, every failure a DeliveryError, and nothing sent while Pushover said stop (quota, rejections).
 */
export class PushoverProvider implements PushProvider {
  readonly enabled = true;
  readonly #apiToken: string;
  readonly #endpoint: PushoverEndpoint;
  readonly #timeoutMs: number;
  readonly #emergency: { retry: number; expire: number };
  readonly #slots = new ConcurrencyLimit(MAX_CONCURRENT_REQUESTS);
  readonly #redact: Redact;
  readonly #keys: RecipientKeys;
  readonly #circuit: RejectionCircuit;
  readonly #sounds: SoundCatalog;
  readonly #clock: Clock;
  readonly #appName: string;
  #probeTimer: Timer | undefined;
  #started = false;
  #lastSuccessAt: string | null = null;
  #lastError: ProviderStatus['lastError'] = null;
  #quota: ProviderStatus['quota'] = null;

  constructor(options: PushoverProviderOptions) {
    this.#clock = options.clock ?? systemClock;
    this.#keys = new RecipientKeys(options.userKey, options.recipients, this.#clock, options.encryptionKey);
    this.#appName = options.appName || DEFAULT_APP_NAME;
    this.#sounds = new SoundCatalog(this.#clock);
    if (!options.apiToken || this.#keys.size === 0) throw new Error('PushoverProvider needs an API token and a user key (or a recipient map)');
    this.#apiToken = options.apiToken;
    this.#endpoint = resolveEndpoint(options.apiUrl ?? DEFAULT_PUSHOVER_API_URL);
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    if (!Number.isFinite(this.#timeoutMs) || this.#timeoutMs <= 0) throw new Error('timeoutMs must be a positive number');
    this.#emergency = { retry: options.emergencyRetrySeconds ?? 60, expire: options.emergencyExpireSeconds ?? 3600 };
    this.#circuit = new RejectionCircuit(options.maxRejections ?? 5, options.probeDelayMs, this.#clock);
    const secrets = [options.apiToken, ...this.#keys.keys()];
    this.#redact = (text) => secrets.reduce((out, secret) => out.split(secret).join('[redacted]'), text);
  }

  recipientAlias(recipient: string): string | null {
    return this.#keys.aliasOf(recipient);
  }

  soundList(): SoundList {
    return this.#sounds.list();
  }

  /** Reads the app's sound list now (and daily after); resolves the list, the built-in one when it could not be read. */
  async refreshSounds(): Promise<SoundList> {
    await this.#sounds.refresh(this.#access(), (error) => this.#failed(classifyFailure(error, this.#redact)));
    return this.#sounds.list();
  }

  /** Validates every key and reads the sound list in the background (the service starts regardless). */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    // One check per key per start: a misconfigured key is not a reason to pause every other recipient.
    void this.#keys.validate({ ...this.#access(), onAnswer: undefined });
    void this.refreshSounds();
  }

  async stop(): Promise<void> {
    this.#probeTimer?.cancel();
    await Promise.all([this.#keys.stop(), this.#sounds.stop()]);
  }

  async send(message: PushoverMessage): Promise<PushReceipt> {
    try {
      const receipt = await this.#sendOnce(message);
      this.#lastSuccessAt = isoNow(this.#clock);
      return receipt;
    } catch (error) {
      throw this.#failed(classifyFailure(error, this.#redact));
    }
  }

  readonly receipts: ReceiptApi = {
    checkReceipt: (receipt) =>
      this.#call(async (access): Promise<ReceiptStatus> => {
        const { acknowledgedByKey, ...status } = await getReceipt(access, receipt);
        // acknowledged_by is a user key: kept only as the alias it belongs to (a group member's key is not ours).
        const alias = acknowledgedByKey === undefined ? undefined : this.#keys.aliasOfKey(acknowledgedByKey);
        return alias === undefined ? status : { ...status, acknowledgedBy: alias };
      }),
    cancelReceipt: (receipt) => this.#call((access) => cancelReceipt(access, receipt)),
    cancelByTag: (tag) => this.#call((access) => cancelReceiptsByTag(access, tag)),
  };

  status(): ProviderStatus {
    return {
      enabled: true,
      lastSuccessAt: this.#lastSuccessAt,
      lastError: this.#lastError ? { ...this.#lastError } : null,
      quota: this.#quota ? { ...this.#quota } : null,
      recipients: this.#keys.checks(),
      circuit: this.#circuit.status(),
    };
  }

  #failed(failure: DeliveryError): DeliveryError {
    this.#lastError = { message: failure.message, at: isoNow(this.#clock) };
    return failure;
  }

  /** What the non-message calls need; every answer counts for the rejection circuit. */
  #access(): ApiAccess {
    return {
      endpoint: this.#endpoint,
      token: this.#apiToken,
      timeoutMs: this.#timeoutMs,
      redact: this.#redact,
      clock: this.#clock,
      onAnswer: (status, said) => this.#answered(status, said),
    };
  }

  /** A receipts call, within the connection limit and never while the circuit is open. */
  async #call<T>(work: (access: ApiAccess) => Promise<T>): Promise<T> {
    this.#assertClosed();
    const release = await this.#slots.acquire({ signal: AbortSignal.timeout(this.#timeoutMs) }).catch(() => {
      throw this.#queueTimeout();
    });
    try {
      return await work(this.#access());
    } catch (error) {
      throw classifyFailure(error, this.#redact);
    } finally {
      release();
    }
  }

  #assertClosed(): void {
    if (!this.#circuit.isOpen) return;
    const at = this.#circuit.nextProbeAt ?? this.#clock.now() + 60_000;
    throw new DeliveryError(
      `Sending is paused: ${this.#circuit.status().reason ?? 'Pushover rejected repeated requests'}. It resumes once a key validation succeeds (next check ${new Date(at).toISOString()})`,
      false,
      { waitUntil: new Date(at + 1000).toISOString() },
    );
  }

  #answered(status: number, said: string): void {
    if (this.#circuit.record(status, said)) this.#scheduleProbe();
  }

  #scheduleProbe(): void {
    this.#probeTimer?.cancel();
    const at = this.#circuit.nextProbeAt;
    if (at === null) return;
    this.#probeTimer = this.#clock.setTimer(() => void this.#probe(), Math.max(0, at - this.#clock.now()));
  }

  async #probe(): Promise<void> {
    const ok = await this.#keys.probe({ ...this.#access(), onAnswer: undefined }).catch(() => false);
    if (ok) this.#circuit.close();
    else {
      this.#circuit.probeFailed();
      this.#scheduleProbe();
    }
  }

  async #sendOnce(message: PushoverMessage): Promise<PushReceipt> {
    // Pushover said no messages are left until the reset: asking again would only collect 429s (and risk a block).
    const quota = this.#quota;
    if (quota?.remaining === 0 && quota.resetAt !== null && Date.parse(quota.resetAt) > this.#clock.now()) {
      throw new DeliveryError(`Pushover's message quota is used up until ${quota.resetAt}; not sent`, false, {
        quotaExhausted: true,
        waitUntil: quota.resetAt,
      });
    }
    this.#assertClosed();
    const alias = message.to ?? DEFAULT_ALIAS;
    const target = this.#keys.targetOf(alias);
    const plain = toPushoverFields(message, this.#emergency, target.devices);
    // Never in clear: a recipient with an encryption key gets ciphertext or nothing.
    const { fields, notes } = target.encryptionKey ? assertSealed(plain, target.encryptionKey, this.#appName, alias) : { fields: plain, notes: [] };
    const deadlineAt = this.#clock.now() + this.#timeoutMs;
    const deadline = new AbortController();
    let sending = false;
    const connection: Connection = { state: 'unseen' };
    // Timed out before its connection opened, a message was certainly not sent (and is retried, even an emergency).
    const timedOut = () => (!sending ? this.#queueTimeout() : connection.state === 'connecting' ? this.#connectTimeout() : this.#answerTimeout());
    const timer = this.#clock.setTimer(() => deadline.abort(timedOut()), this.#timeoutMs);
    let release: (() => void) | undefined;
    try {
      release = await this.#slots.acquire({ signal: deadline.signal });
      // A request started with almost no time left would likely be cut off after Pushover accepted it,
      // and the retry would deliver it twice; give up unsent instead.
      if (deadlineAt - this.#clock.now() < Math.min(MIN_REQUEST_BUDGET_MS, this.#timeoutMs / 2)) throw this.#queueTimeout();
      sending = true;
      const response = await rejectOnAbort(
        postMessage({ userKey: target.key, apiToken: this.#apiToken }, this.#endpoint, fields, deadline.signal, connection),
        deadline.signal,
      ).catch((error: unknown) => {
        throw connection.state === 'connecting' && !(error instanceof DeliveryError) ? notSent(classifyFailure(error, this.#redact)) : error;
      });
      const quota = parseQuota(response.headers);
      if (quota) this.#quota = quota;
      this.#answered(response.status, this.#redact(response.body.slice(0, 200)));
      const receipt = classifyResponse(response, this.#redact, this.#clock.now());
      return notes.length > 0 ? { ...receipt, note: `Encrypted: ${notes.join('; ')}` } : receipt;
    } finally {
      timer.cancel();
      release?.();
    }
  }

  #queueTimeout(): DeliveryError {
    return new DeliveryError(`No free connection to Pushover within ${this.#timeoutMs} ms; the message was not sent`, true);
  }

  #connectTimeout(): DeliveryError {
    return new DeliveryError(`No connection to Pushover could be opened within ${this.#timeoutMs} ms; the message was not sent`, true);
  }

  #answerTimeout(): DeliveryError {
    return new DeliveryError(`Pushover did not answer within ${this.#timeoutMs} ms; the message may or may not have been delivered`, true, {
      maybeDelivered: true,
    });
  }
}

/** A failure before the connection opened: no byte of the message was written, so it certainly did not arrive. */
function notSent(failure: DeliveryError): DeliveryError {
  const { maybeDelivered: _maybe, ...details } = failure.details;
  return new DeliveryError(`${failure.message} (before a connection was open: not sent)`, failure.retryable, details);
}

/** The library may never call back once a response has started, so the abort settles the call itself. */
function rejectOnAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
