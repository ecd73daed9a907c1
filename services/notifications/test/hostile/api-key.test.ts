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
import { makeStorageDir, removeDir, startRealService, type RunningTestService } from './running-service.js';

const API_KEY = 'hostile-test-key-0123456789-abcdefghij';

let service: RunningTestService;
let routes: Route[];

beforeAll(async () => {
  // Every route × every wrong key from one address: far past the guess throttle, tested on its own below.
  service = await startRealService(await makeStorageDir(), { API_KEY, AUTH_MAX_FAILURES_PER_MINUTE: '100000' });
  routes = await fetchDocumentedRoutes(service.port);
});

afterAll(async () => {
  await service?.stop();
  if (service) await removeDir(service.dir);
});

const concrete = (path: string) => path.replace(/\{(\w+)\}/g, (_m, name: string) => (name === 'recipient' ? 'alice' : 'some-id'));

function send(route: Route, headers: Array<[string, string]>): Promise<RawResponse> {
  const body = route.method === 'GET' || route.method === 'DELETE' ? undefined : JSON.stringify({ recipient: 'alice', message: 'hi' });
  return sendRaw(service.port, {
    method: route.method,
    target: concrete(route.path),
    headers: body === undefined ? headers : [...headers, ['Content-Type', 'application/json']],
    ...(body === undefined ? {} : { body }),
  });
}

describe('notifications with API_KEY set: every route from /openapi.json', () => {
  it('documents the public routes and at least one protected route', () => {
    expect(routes.some((r) => r.path === '/health')).toBe(true);
    expect(routes.filter((r) => !PUBLIC.includes(r.path)).length).toBeGreaterThanOrEqual(8);
  });

  it('refuses a missing or wrong key on every non-public route with 401 and the error body', async () => {
    expect(await routesLettingWrongKeysIn(routes, send, API_KEY)).toEqual([]);
  });

  it('lets the right key through on every non-public route (bearer and X-API-Key)', async () => {
    expect(await routesRefusingTheRightKey(routes, send, API_KEY)).toEqual([]);
  });

  it('keeps /health, /docs and /openapi.json open without a key', async () => {
    for (const path of PUBLIC) {
      const res = await sendRaw(service.port, { method: 'GET', target: path });
      expect(res.status, path).toBeLessThan(400);
    }
    const docs = await sendRaw(service.port, { method: 'GET', target: '/docs/' });
    expect(docs.status).toBe(200);
  });

  it('does not open a protected route through a public prefix, a dot segment or a different case', async () => {
    const tricks = [
      '/health/../notifications/alice',
      '/health/%2e%2e/notifications/alice',
      '/openapi.json/../notifications/alice',
      '/health/..%2F..%2Fnotifications/alice',
      '/NOTIFICATIONS/alice',
      '/notifications/alice/stream?x=/health',
      '//notifications/alice',
    ];
    for (const target of tricks) {
      const res = await sendRaw(service.port, { method: 'GET', target });
      expect([401, 404], `${target} answered ${res.status}: ${res.body.toString('utf8').slice(0, 200)}`).toContain(res.status);
      expectErrorBody(res, target);
    }
    // Under /docs, Swagger UI answers any sub-path with its own page; never with notification data.
    const docs = await sendRaw(service.port, { method: 'GET', target: '/docs/..%2fnotifications%2falice' });
    expect(docs.headers['content-type'] ?? '').not.toMatch(/json/);
    for (const target of ['//recipients', '//notifications/alice']) {
      expect((await sendRaw(service.port, { method: 'GET', target })).status, target).toBe(401);
    }
  });

  it('shows only status, service and version on /health without the key, and everything with it', async () => {
    const open = await sendRaw(service.port, { method: 'GET', target: '/health' });
    expect(Object.keys(JSON.parse(open.body.toString('utf8')) as object).sort()).toEqual(['service', 'status', 'version']);
    const full = await sendRaw(service.port, { method: 'GET', target: '/health', headers: [['X-API-Key', API_KEY]] });
    expect(JSON.parse(full.body.toString('utf8'))).toMatchObject({ storage: { path: expect.any(String) }, process: { pid: expect.any(Number) } });
  });
});

describe('notifications with API_KEY set: guessing the key', () => {
  it('refuses an address with 429 and Retry-After after 10 wrong keys in a minute, even the right key', async () => {
    const dir = await makeStorageDir();
    const guarded = await startRealService(dir, { API_KEY });
    try {
      await expectGuessThrottle(guarded.port, '/recipients', API_KEY);
    } finally {
      await guarded.stop();
      await removeDir(dir);
    }
  });
});
