import { DeliveryError, type ProviderStatus, type PushProvider, type PushReceipt } from '../../domain/push-provider.js';
import { classifyFailure, classifyResponse, parseQuota, type Redact } from './classify-response.js';
import { postMessage, resolveEndpoint, type PushoverEndpoint } from './pushover-request.js';
import { Semaphore } from './semaphore.js';
import { toPushoverFields, type PushoverMessage } from './to-pushover-fields.js';

export const DEFAULT_PUSHOVER_API_URL = 'https://api.pushover.net';
/** Pushover asks clients to keep at most 2 connections open at once. */
export const MAX_CONCURRENT_REQUESTS = 2;
/** A request is only started with at least this much (or half the timeout) left before the deadline. */
const MIN_REQUEST_BUDGET_MS = 1000;

/** How to reach Pushover; apiUrl may be any http(s)://host[:port][/prefix] (a proxy, a test server). */
export interface PushoverProviderOptions {
  userKey: string;
  apiToken: string;
  apiUrl?: string | undefined;
  /** Bound on one send, waiting for a free connection included. Default 10 s. */
  timeoutMs?: number | undefined;
  /** Priority 2 default for `retry`, seconds (Pushover minimum 30). Default 60. */
  emergencyRetrySeconds?: number | undefined;
  /** Priority 2 default for `expire`, seconds (Pushover maximum 10800). Default 3600. */
  emergencyExpireSeconds?: number | undefined;
}

/** PushProvider over pushover-notifications: bounded in time and concurrency, every failure a DeliveryError. */
export class PushoverProvider implements PushProvider {
  readonly enabled = true;
  readonly #credentials: { userKey: string; apiToken: string };
  readonly #endpoint: PushoverEndpoint;
  readonly #timeoutMs: number;
  readonly #emergency: { retry: number; expire: number };
  readonly #slots = new Semaphore(MAX_CONCURRENT_REQUESTS);
  readonly #redact: Redact;
  #lastSuccessAt: string | null = null;
  #lastError: ProviderStatus['lastError'] = null;
  #quota: ProviderStatus['quota'] = null;

  constructor(options: PushoverProviderOptions) {
    if (!options.userKey || !options.apiToken) throw new Error('PushoverProvider needs a user key and an API token');
    this.#credentials = { userKey: options.userKey, apiToken: options.apiToken };
    this.#endpoint = resolveEndpoint(options.apiUrl ?? DEFAULT_PUSHOVER_API_URL);
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    if (!Number.isFinite(this.#timeoutMs) || this.#timeoutMs <= 0) throw new Error('timeoutMs must be a positive number');
    this.#emergency = { retry: options.emergencyRetrySeconds ?? 60, expire: options.emergencyExpireSeconds ?? 3600 };
    const secrets = [options.userKey, options.apiToken];
    this.#redact = (text) => secrets.reduce((out, secret) => out.split(secret).join('[redacted]'), text);
  }

  async send(message: PushoverMessage): Promise<PushReceipt> {
    try {
      const receipt = await this.#sendOnce(message);
      this.#lastSuccessAt = new Date().toISOString();
      return receipt;
    } catch (error) {
      const failure = classifyFailure(error, this.#redact);
      this.#lastError = { message: failure.message, at: new Date().toISOString() };
      throw failure;
    }
  }

  status(): ProviderStatus {
    return {
      enabled: true,
      lastSuccessAt: this.#lastSuccessAt,
      lastError: this.#lastError ? { ...this.#lastError } : null,
      quota: this.#quota ? { ...this.#quota } : null,
    };
  }

  async #sendOnce(message: PushoverMessage): Promise<PushReceipt> {
    // Pushover said no messages are left until the reset: asking again would only collect 429s (and risk a block).
    const quota = this.#quota;
    if (quota?.remaining === 0 && quota.resetAt !== null && Date.parse(quota.resetAt) > Date.now()) {
      throw new DeliveryError(`Pushover's message quota is used up until ${quota.resetAt}; not sent`, false, {
        quotaExhausted: true,
        waitUntil: quota.resetAt,
      });
    }
    const fields = toPushoverFields(message, this.#emergency);
    const deadlineAt = Date.now() + this.#timeoutMs;
    const deadline = new AbortController();
    let sending = false;
    const timer = setTimeout(() => deadline.abort(sending ? this.#answerTimeout() : this.#queueTimeout()), this.#timeoutMs);
    timer.unref();
    let release: (() => void) | undefined;
    try {
      release = await this.#slots.acquire(deadline.signal);
      // A request started with almost no time left would likely be cut off after Pushover accepted it,
      // and the retry would deliver it twice; give up unsent instead.
      if (deadlineAt - Date.now() < Math.min(MIN_REQUEST_BUDGET_MS, this.#timeoutMs / 2)) throw this.#queueTimeout();
      sending = true;
      const response = await rejectOnAbort(
        postMessage(this.#credentials, this.#endpoint, fields, deadline.signal),
        deadline.signal,
      );
      const quota = parseQuota(response.headers);
      if (quota) this.#quota = quota;
      return classifyResponse(response, this.#redact);
    } finally {
      clearTimeout(timer);
      release?.();
    }
  }

  #queueTimeout(): DeliveryError {
    return new DeliveryError(`No free connection to Pushover within ${this.#timeoutMs} ms; the message was not sent`, true);
  }

  #answerTimeout(): DeliveryError {
    return new DeliveryError(
      `Pushover did not answer within ${this.#timeoutMs} ms; the message may or may not have been delivered`,
      true,
    );
  }
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
