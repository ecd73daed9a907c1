import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PUBLIC_ROUTE_PATHS as PUBLIC,
  expectErrorBody,
  expectGuessThrottle,
  routesLettingWrongKeysIn,
  routesRefusingTheRightKey,
  fetchDocumentedRoutes,
  sendRaw,
  type DocumentedRoute as Route,
  type RawResponse,
} from '@homeops/test-kit';
import { serveTestApp, type ServedApp } from './served-app.js';

const API_KEY = 'hostile-test-key-0123456789-abcdefghij';

let app: ServedApp;
let routes: Route[];

beforeAll(async () => {
  // Every route × every wrong key from one address: far past the guess throttle, which has its own test below.
  app = await serveTestApp({ apiKey: API_KEY, authFailuresPerMinute: 100_000 });
  routes = await fetchDocumentedRoutes(app.port);
});

afterAll(async () => {
  await app?.stop();
});

function send(route: Route, headers: Array<[string, string]>): Promise<RawResponse> {
  const target = route.path.replace('{uuid}', 'plug-1').replace('{channel}', '0');
  const body = route.method === 'GET' ? undefined : JSON.stringify({ channel: 0, on: true });
  return sendRaw(app.port, {
    method: route.method,
    target,
    headers: body === undefined ? headers : [...headers, ['Content-Type', 'application/json']],
    ...(body === undefined ? {} : { body }),
  });
}

describe('device-control with API_KEY set: every route from /openapi.json', () => {
  it('documents the public routes and the protected ones', () => {
    expect(routes.some((r) => r.path === '/health')).toBe(true);
    expect(routes.filter((r) => !PUBLIC.includes(r.path)).length).toBeGreaterThanOrEqual(6);
  });

  it('refuses a missing or wrong key on every non-public route with 401 and the error body, and switches nothing', async () => {
    expect(await routesLettingWrongKeysIn(routes, send, API_KEY)).toEqual([]);
    expect(app.cloud.callsOf('setChannel')).toEqual([]);
  });

  it('lets the right key through on every non-public route (bearer and X-API-Key)', async () => {
    expect(await routesRefusingTheRightKey(routes, send, API_KEY)).toEqual([]);
  });

  it('keeps /health, /docs and /openapi.json open without a key', async () => {
    for (const path of [...PUBLIC, '/docs/']) {
      const res = await sendRaw(app.port, { method: 'GET', target: path });
      expect(res.status, path).toBeLessThan(400);
    }
  });

  it('does not open a protected route through a public prefix, a dot segment or a different case', async () => {
    const tricks = [
      '/health/../devices',
      '/health/%2e%2e/devices',
      '/openapi.json/../devices/plug-1',
      '/health/..%2F..%2Fdevices',
      '/DEVICES',
      '/devices?x=/health',
      '//devices',
      '/events?/health',
    ];
    for (const target of tricks) {
      const res = await sendRaw(app.port, { method: 'GET', target });
      expect([401, 404], `${target} answered ${res.status}: ${res.body.toString('utf8').slice(0, 200)}`).toContain(res.status);
      expectErrorBody(res, target);
    }
    expect((await sendRaw(app.port, { method: 'GET', target: '//devices' })).status).toBe(401);
  });
});

describe('device-control with API_KEY set: guessing the key', () => {
  it('refuses an address with 429 and Retry-After after 10 wrong keys in a minute, even the right key', async () => {
    const guarded = await serveTestApp({ apiKey: API_KEY });
    try {
      await expectGuessThrottle(guarded.port, '/devices', API_KEY);
    } finally {
      await guarded.stop();
    }
  });
});
