import type { IncomingHttpHeaders } from 'node:http';
import { DeliveryError, type ProviderStatus, type PushReceipt } from '../../domain/push-provider.js';
import type { RawResponse } from './pushover-request.js';

/** Removes secrets from text that may end up in logs, records or /health. */
export type Redact = (text: string) => string;

type Quota = NonNullable<ProviderStatus['quota']>;

function headerNumber(headers: IncomingHttpHeaders, name: string): number | null {
  const raw = headers[name];
  const value = Number(Array.isArray(raw) ? raw[0] : raw);
  return raw === undefined || !Number.isFinite(value) ? null : value;
}

/** Reads Pushover's X-Limit-App-* headers; null when the response carried none. */
export function parseQuota(headers: IncomingHttpHeaders): Quota | null {
  const limit = headerNumber(headers, 'x-limit-app-limit');
  const remaining = headerNumber(headers, 'x-limit-app-remaining');
  const reset = headerNumber(headers, 'x-limit-app-reset');
  if (limit === null && remaining === null && reset === null) return null;
  return { limit, remaining, resetAt: reset === null ? null : new Date(reset * 1000).toISOString() };
}

/** Pushover's monthly quota resets at the start of the next month (UTC) when no X-Limit-App-Reset says when. */
export function nextMonthUtc(now: Date): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
}

function parseJsonObject(body: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function errorTexts(json: Record<string, unknown> | null, redact: Redact): string[] {
  const errors = json?.errors;
  return Array.isArray(errors) ? errors.filter((e): e is string => typeof e === 'string').map(redact) : [];
}

/**
 * The JSON of an accepted answer: only HTTP 200 with `status: 1`. 429 means the monthly quota is spent; other 4xx are
 * permanent; 5xx and unreadable 200s are worth retrying (though an unreadable 200 may have been accepted); anything
 * else (3xx: a wrong API URL) is not. `what` names the request in the error texts.
 */
export function acceptedJson(response: RawResponse, redact: Redact, now: number, what = 'the message'): Record<string, unknown> {
  const { status } = response;
  const json = parseJsonObject(response.body);
  const errors = errorTexts(json, redact);
  const said = errors.length > 0 ? `: ${errors.join('; ')}` : '';
  if (status === 200 && json?.status === 1) return json;
  if (status === 429) {
    const waitUntil = parseQuota(response.headers)?.resetAt ?? nextMonthUtc(new Date(now));
    throw new DeliveryError(`Pushover message quota exhausted (HTTP 429)${said}`, false, { status, errors, quotaExhausted: true, waitUntil });
  }
  if (status >= 400 && status < 500) {
    throw new DeliveryError(`Pushover rejected ${what} (HTTP ${status})${said}`, false, { status, errors });
  }
  if (status >= 500) {
    throw new DeliveryError(`Pushover is unavailable (HTTP ${status})${said}`, true, { status, errors });
  }
  if (status === 200 && json === null) {
    throw new DeliveryError('Pushover answered HTTP 200 with a body that is not a JSON object', true, { status, maybeDelivered: true });
  }
  if (status === 200) {
    throw new DeliveryError(`Pushover did not accept ${what} (status ${String(json?.status)})${said}`, false, { status, errors });
  }
  throw new DeliveryError(`Unexpected HTTP ${status} from the Pushover API URL`, false, { status });
}

/** The receipt of an accepted message, or the DeliveryError `acceptedJson` describes. */
export function classifyResponse(response: RawResponse, redact: Redact, now: number): PushReceipt {
  const json = acceptedJson(response, redact, now);
  const receipt: PushReceipt = { request: typeof json.request === 'string' ? json.request : '' };
  if (typeof json.receipt === 'string') receipt.receipt = json.receipt;
  return receipt;
}

/** Failures that happen before a request can reach Pushover: it was certainly not received. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'ERR_INVALID_URL',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** Turns a request that got no response (network error, abort, our timeout) into a retryable DeliveryError. */
export function classifyFailure(error: unknown, redact: Redact): DeliveryError {
  if (error instanceof DeliveryError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const text = error instanceof Error ? error.message : String(error);
  const detail = typeof code === 'string' && !text.includes(code) ? `${code} ${text}` : text;
  // A connection cut after the request was written (ECONNRESET, socket hang up) may follow an accepted message.
  const maybeDelivered = !(typeof code === 'string' && NOT_SENT_CODES.has(code));
  return new DeliveryError(`Pushover is unreachable: ${redact(detail)}`, true, maybeDelivered ? { maybeDelivered } : {});
}
