import type { Clock } from '@homeops/common';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { DeliveryError, type ReceiptStatus } from '../../domain/push-provider.js';
import { acceptedJson, classifyFailure, type Redact } from './classify-response.js';
import type { PushoverEndpoint, RawResponse } from './pushover-request.js';

/** How to reach the parts of Pushover's API that pushover-notifications does not cover. */
export interface ApiAccess {
  endpoint: PushoverEndpoint;
  token: string;
  timeoutMs: number;
  redact: Redact;
  /** Dates what the answers imply (a quota's reset when Pushover names none). */
  clock: Clock;
  /** Told every answer's status (and its start, redacted): the rejection circuit counts them. */
  onAnswer?: ((status: number, said: string) => void) | undefined;
}

/**
 * One GET or form POST to `/1/<path>`; resolves whatever came back and rejects only when no response arrived in
 * time. The token goes in the query (GET, as Pushover wants it) or the form, never in a log line.
 */
function call(access: ApiAccess, method: 'GET' | 'POST', path: string, params: Record<string, string>): Promise<RawResponse> {
  const { endpoint } = access;
  const form = new URLSearchParams({ token: access.token, ...params }).toString();
  const send = endpoint.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      {
        method,
        protocol: endpoint.protocol,
        hostname: endpoint.hostname,
        port: endpoint.port,
        path: `${endpoint.prefix}/1/${path}${method === 'GET' ? `?${form}` : ''}`,
        headers: method === 'POST' ? { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(form) } : {},
        signal: AbortSignal.timeout(access.timeoutMs),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(method === 'POST' ? form : undefined);
  });
}

async function accepted(access: ApiAccess, method: 'GET' | 'POST', path: string, params: Record<string, string>, what: string) {
  let response: RawResponse;
  try {
    response = await call(access, method, path, params);
  } catch (error) {
    throw classifyFailure(error, access.redact);
  }
  access.onAnswer?.(response.status, access.redact(response.body.slice(0, 200)));
  return acceptedJson(response, access.redact, access.clock.now(), what);
}

/** Pushover's answer to `users/validate.json`: the key's devices, or why it is not valid. */
export type Validation = { valid: true; devices: string[] } | { valid: false; problem: string };

/**
 * Checks a user or group key (and a device name) without sending anything or using quota. A 4xx is an answer
 * (invalid); no answer or a 5xx rejects with a retryable DeliveryError.
 */
export async function validateUser(access: ApiAccess, user: string, device?: string): Promise<Validation> {
  try {
    const json = await accepted(access, 'POST', 'users/validate.json', device ? { user, device } : { user }, 'the key');
    const devices = Array.isArray(json.devices) ? json.devices.filter((d): d is string => typeof d === 'string') : [];
    return { valid: true, devices };
  } catch (error) {
    if (error instanceof DeliveryError && !error.retryable && error.details.status !== undefined && error.details.status < 500) {
      return { valid: false, problem: error.details.errors?.join('; ') || error.message };
    }
    throw error;
  }
}

function unixTime(value: unknown): string | undefined {
  return typeof value === 'number' && value > 0 ? new Date(value * 1000).toISOString() : undefined;
}

/** The receipt's state, with `acknowledged_by` (a user key) given back raw for the caller to turn into an alias. */
export async function getReceipt(access: ApiAccess, receipt: string): Promise<ReceiptStatus & { acknowledgedByKey?: string }> {
  const json = await accepted(access, 'GET', `receipts/${encodeURIComponent(receipt)}.json`, {}, 'the receipt');
  const status: ReceiptStatus & { acknowledgedByKey?: string } = { acknowledged: json.acknowledged === 1, expired: json.expired === 1 };
  const acknowledgedAt = unixTime(json.acknowledged_at);
  const expiresAt = unixTime(json.expires_at);
  if (acknowledgedAt) status.acknowledgedAt = acknowledgedAt;
  if (expiresAt) status.expiresAt = expiresAt;
  if (typeof json.acknowledged_by === 'string' && json.acknowledged_by !== '') status.acknowledgedByKey = json.acknowledged_by;
  if (typeof json.acknowledged_by_device === 'string' && json.acknowledged_by_device !== '') status.acknowledgedByDevice = json.acknowledged_by_device;
  return status;
}

/** Stops the repeats of an emergency notification. */
export async function cancelReceipt(access: ApiAccess, receipt: string): Promise<void> {
  await accepted(access, 'POST', `receipts/${encodeURIComponent(receipt)}/cancel.json`, {}, 'the cancel');
}

/** Stops every ringing emergency of the application that carries `tag`. */
export async function cancelReceiptsByTag(access: ApiAccess, tag: string): Promise<void> {
  await accepted(access, 'POST', `receipts/cancel_by_tag/${encodeURIComponent(tag)}.json`, {}, 'the cancel by tag');
}

/** The application's sound names (built-in and its own uploads) with their descriptions. */
export async function getSounds(access: ApiAccess): Promise<Record<string, string>> {
  const json = await accepted(access, 'GET', 'sounds.json', {}, 'the sound list request');
  const sounds = json.sounds;
  if (typeof sounds !== 'object' || sounds === null || Array.isArray(sounds)) {
    throw new DeliveryError('Pushover answered the sound list without sounds', true);
  }
  return Object.fromEntries(Object.entries(sounds).filter((e): e is [string, string] => typeof e[1] === 'string'));
}
