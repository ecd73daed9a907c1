import { describe, expect, it } from 'vitest';
import { PUBLIC_PATHS } from '@homeops/common';
import { expectErrorBody, sendRaw, type RawResponse } from './raw-http.js';

/** A route as the OpenAPI document lists it. */
export interface DocumentedRoute {
  method: string;
  path: string;
}

/** Every operation of an OpenAPI document, so a table over routes covers new routes by itself. */
const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'];

export function routesFromOpenApi(document: { paths: Record<string, Record<string, unknown>> }): DocumentedRoute[] {
  return Object.entries(document.paths).flatMap(([path, ops]) =>
    Object.keys(ops)
      .filter((key) => HTTP_METHODS.includes(key))
      .map((method) => ({ method: method.toUpperCase(), path })),
  );
}

/** Paths that stay open when API_KEY is set. */
export const PUBLIC_ROUTE_PATHS: readonly string[] = PUBLIC_PATHS;

/** Missing and wrong ways to present a key; every one must get 401. */
export function wrongApiKeyCases(apiKey: string): Array<[string, Array<[string, string]>]> {
  return [
    ['no key', []],
    ['a wrong bearer key', [['Authorization', 'Bearer not-the-key-0123456789']]],
    ['a wrong X-API-Key', [['X-API-Key', 'not-the-key-0123456789']]],
    ['the key with a suffix', [['X-API-Key', `${apiKey}x`]]],
    ['an empty bearer', [['Authorization', 'Bearer ']]],
    ['the key as Basic auth', [['Authorization', `Basic ${Buffer.from(`user:${apiKey}`).toString('base64')}`]]],
  ];
}

/** The two accepted ways to present the key. */
export function rightApiKeyCases(apiKey: string): Array<Array<[string, string]>> {
  return [[['Authorization', `Bearer ${apiKey}`]], [['X-API-Key', apiKey]]];
}

/** Sends one request to a documented route with the given headers. */
export type RouteSender = (route: DocumentedRoute, headers: Array<[string, string]>) => Promise<RawResponse>;

/** Every non-public route × every wrong key: the ones that did not answer 401 with the error body, as text. */
export async function routesLettingWrongKeysIn(routes: DocumentedRoute[], send: RouteSender, apiKey: string): Promise<string[]> {
  const failures: string[] = [];
  for (const route of routes.filter((r) => !PUBLIC_ROUTE_PATHS.includes(r.path))) {
    for (const [label, headers] of wrongApiKeyCases(apiKey)) {
      const res = await send(route, headers);
      if (res.status !== 401) failures.push(`${route.method} ${route.path} with ${label}: ${res.status}`);
      else expectErrorBody(res, `${route.method} ${route.path} with ${label}`);
    }
  }
  return failures;
}

/** Every non-public route × both right ways to send the key: the ones that still answered 401. */
export async function routesRefusingTheRightKey(routes: DocumentedRoute[], send: RouteSender, apiKey: string): Promise<string[]> {
  const failures: string[] = [];
  for (const route of routes.filter((r) => !PUBLIC_ROUTE_PATHS.includes(r.path))) {
    for (const headers of rightApiKeyCases(apiKey)) {
      const res = await send(route, headers);
      if (res.status === 401) failures.push(`${route.method} ${route.path} with ${headers[0]?.[0]}`);
    }
  }
  return failures;
}

/** The routes a running service documents at /openapi.json. */
export async function fetchDocumentedRoutes(port: number): Promise<DocumentedRoute[]> {
  const doc = await sendRaw(port, { method: 'GET', target: '/openapi.json' });
  return routesFromOpenApi(JSON.parse(doc.body.toString('utf8')) as Parameters<typeof routesFromOpenApi>[0]);
}

/**
 * Sends 13 wrong keys and then the right one to `target` from one address: the default throttle allows 10 wrong keys
 * a minute, so the answers are 401 ×10 then 429 with Retry-After; the right key still gets 200.
 */
export async function expectGuessThrottle(port: number, target: string, apiKey: string): Promise<void> {
  const statuses: number[] = [];
  for (let i = 0; i < 12; i++) {
    statuses.push((await sendRaw(port, { method: 'GET', target, headers: [['X-API-Key', `guess-${i}-${apiKey}`]] })).status);
  }
  expect(statuses).toEqual([...Array<number>(10).fill(401), 429, 429]);
  const wrong = await sendRaw(port, { method: 'GET', target, headers: [['X-API-Key', `guess-12-${apiKey}`]] });
  expect(wrong.status).toBe(429);
  expect(Number(wrong.headers['retry-after'])).toBeGreaterThan(50);
  expectErrorBody(wrong, 'a wrong key after 12 guesses');
  // The right key still passes: guessers sharing the address (a NAT, a reverse proxy) cannot lock its owner out.
  const right = await sendRaw(port, { method: 'GET', target, headers: [['X-API-Key', apiKey]] });
  expect(right.status).toBe(200);
}

/** A service with API_KEY set, as the shared key cases reach it (read once its beforeAll ran). */
export interface KeyedService {
  apiKey: string;
  port(): number;
  routes(): DocumentedRoute[];
  send: RouteSender;
  /** How many routes at least need the key. */
  minProtected: number;
  /** A protected path the tricks aim at, e.g. `/devices`. */
  protectedPath: string;
  /** The service's own tricks beside the shared ones; each answers 401 or 404 with the error body. */
  extraTricks?: readonly string[];
}

/**
 * The API-key cases both services run against every route of their /openapi.json: wrong keys refused, the right one
 * let through, the public routes open, and no protected route reached through a public prefix, a dot segment or case.
 */
export function describeApiKeyCases(service: string, subject: KeyedService): void {
  describe(`${service} with API_KEY set: every route from /openapi.json`, () => {
    it('documents the public routes and the protected ones', () => {
      expect(subject.routes().some((r) => r.path === '/health')).toBe(true);
      expect(subject.routes().filter((r) => !PUBLIC_ROUTE_PATHS.includes(r.path)).length).toBeGreaterThanOrEqual(subject.minProtected);
    });

    it('refuses a missing or wrong key on every non-public route with 401 and the error body', async () => {
      expect(await routesLettingWrongKeysIn(subject.routes(), subject.send, subject.apiKey)).toEqual([]);
    });

    it('lets the right key through on every non-public route (bearer and X-API-Key)', async () => {
      expect(await routesRefusingTheRightKey(subject.routes(), subject.send, subject.apiKey)).toEqual([]);
    });

    it('keeps /health, /docs and /openapi.json open without a key', async () => {
      for (const path of PUBLIC_ROUTE_PATHS) expect((await sendRaw(subject.port(), { method: 'GET', target: path })).status, path).toBeLessThan(400);
      expect((await sendRaw(subject.port(), { method: 'GET', target: '/docs/' })).status).toBe(200);
    });

    it('does not open a protected route through a public prefix, a dot segment or a different case', async () => {
      const path = subject.protectedPath;
      const tricks = [
        `/health/..${path}`,
        `/health/%2e%2e${path}`,
        `/openapi.json/..${path}`,
        `/health/..%2F..%2F${path.slice(1)}`,
        path.toUpperCase(),
        `${path}?x=/health`,
        ...(subject.extraTricks ?? []),
      ];
      for (const target of tricks) {
        const res = await sendRaw(subject.port(), { method: 'GET', target });
        expect([401, 404], `${target} answered ${res.status}: ${res.body.toString('utf8').slice(0, 200)}`).toContain(res.status);
        expectErrorBody(res, target);
      }
      expect((await sendRaw(subject.port(), { method: 'GET', target: `/${path}` })).status, `/${path}`).toBe(401);
    });
  });
}
