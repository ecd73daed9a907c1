import { sendRaw, type RawResponse } from '@homeops/test-kit';
import type { Grant } from '@homeops/common';
import { expect } from 'vitest';
import { buildTestApp, listenOn, type TestApp, type TestAppOptions } from '../support/test-app.js';

/** The API key of the access suites' apps. */
export const API_KEY = 'access-test-key-0123456789-abcdefghij';

/** A token of the right shape that no registry ever gave out. */
export const UNKNOWN_TOKEN = `hop_${'0'.repeat(12)}_${'A'.repeat(43)}`;

/** A keyed test app, listening: the suites send real requests with keys and tokens. */
export interface KeyedApp extends TestApp {
  port: number;
}

/** buildTestApp with API_KEY set (and the guess throttle far away: the suites send wrong tokens on purpose), listening. */
export async function buildKeyedApp(options: TestAppOptions = {}): Promise<KeyedApp> {
  const t = await buildTestApp({ ...options, config: { API_KEY, AUTH_MAX_FAILURES_PER_MINUTE: 100_000, ...options.config } });
  return { ...t, port: await listenOn(t.app) };
}

/** One request: `auth` is the key or token sent as a bearer (none when undefined), a body is sent as JSON. */
export interface AccessRequest {
  method: string;
  target: string;
  auth?: string | undefined;
  body?: unknown;
}

/** The answer with its JSON body parsed (undefined for a stream or an empty body). */
export interface AccessResponse extends RawResponse {
  json: unknown;
}

export async function send(port: number, request: AccessRequest): Promise<AccessResponse> {
  const headers: Array<[string, string]> = request.auth === undefined ? [] : [['Authorization', `Bearer ${request.auth}`]];
  const body = request.body === undefined ? undefined : JSON.stringify(request.body);
  if (body !== undefined) headers.push(['Content-Type', 'application/json']);
  const res = await sendRaw(port, { method: request.method, target: request.target, headers, ...(body === undefined ? {} : { body }) });
  const text = res.body.toString('utf8');
  const json: unknown = !res.streaming && /^application\/json/.test(res.headers['content-type'] ?? '') && text !== '' ? JSON.parse(text) : undefined;
  return { ...res, json };
}

/** Sends with the API key and expects a 2xx; resolves the JSON body. */
export async function sendAsAdmin<T = unknown>(port: number, request: Omit<AccessRequest, 'auth'>): Promise<T> {
  const res = await send(port, { ...request, auth: API_KEY });
  expect(res.status, `${request.method} ${request.target} with the API key: ${res.body.toString('utf8').slice(0, 300)}`).toBeLessThan(300);
  return res.json as T;
}

/** A token made with the API key: its id and its secret (shown once). */
export interface IssuedToken {
  id: string;
  secret: string;
}

export async function issueToken(
  port: number,
  scopes: Array<Grant | Grant['scope']>,
  extra: { label?: string; expiresAt?: string } = {},
): Promise<IssuedToken> {
  const body = { label: extra.label ?? 'access test', scopes, ...(extra.expiresAt === undefined ? {} : { expiresAt: extra.expiresAt }) };
  const { token, secret } = await sendAsAdmin<{ token: { id: string }; secret: string }>(port, { method: 'POST', target: '/tokens', body });
  return { id: token.id, secret };
}

/** Stores a notification for `recipient` with the API key; resolves its id. */
export async function storeNotification(port: number, recipient: string, extra: Record<string, unknown> = {}): Promise<string> {
  return (await sendAsAdmin<{ id: string }>(port, { method: 'POST', target: '/notifications', body: { recipient, message: `for ${recipient}`, ...extra } })).id;
}
