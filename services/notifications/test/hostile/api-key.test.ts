import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeApiKeyCases, expectGuessThrottle, fetchDocumentedRoutes, sendRaw, type DocumentedRoute as Route, type RawResponse } from '@homeops/test-kit';
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

describeApiKeyCases('notifications', {
  apiKey: API_KEY,
  port: () => service.port,
  routes: () => routes,
  send,
  minProtected: 8,
  protectedPath: '/notifications/alice',
  extraTricks: ['/notifications/alice/stream?x=/health'],
});

describe('notifications with API_KEY set: what the public paths show', () => {
  it('keeps Swagger UI sub-paths on its own page, never notification data', async () => {
    const docs = await sendRaw(service.port, { method: 'GET', target: '/docs/..%2fnotifications%2falice' });
    expect(docs.headers['content-type'] ?? '').not.toMatch(/json/);
    expect((await sendRaw(service.port, { method: 'GET', target: '//recipients' })).status).toBe(401);
  });

  it('shows only status, service and version on /health without the key, and everything with it', async () => {
    const open = await sendRaw(service.port, { method: 'GET', target: '/health' });
    expect(Object.keys(JSON.parse(open.body.toString('utf8')) as object).sort()).toEqual(['service', 'status', 'version']);
    const full = await sendRaw(service.port, { method: 'GET', target: '/health', headers: [['X-API-Key', API_KEY]] });
    expect(JSON.parse(full.body.toString('utf8'))).toMatchObject({ storage: { path: expect.any(String) }, process: { pid: expect.any(Number) } });
  });
});

describe('notifications with API_KEY set: guessing the key', () => {
  it('refuses the wrong keys of an address with 429 and Retry-After after 10 in a minute, and lets the right key through', async () => {
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

describe('notifications behind a reverse proxy: TRUSTED_PROXIES', () => {
  const get = (port: number, key: string, forwardedFor: string) =>
    sendRaw(port, {
      method: 'GET',
      target: '/recipients',
      headers: [
        ['X-API-Key', key],
        ['X-Forwarded-For', forwardedFor],
      ],
    });

  async function afterTenGuessesFrom(env: Record<string, string>, guesser: string): Promise<{ guesser: number; neighbour: number; right: number }> {
    const dir = await makeStorageDir();
    const proxied = await startRealService(dir, { API_KEY, ...env });
    try {
      for (let i = 0; i < 10; i++) await get(proxied.port, `guess-${i}-${API_KEY}`, guesser);
      return {
        guesser: (await get(proxied.port, `guess-10-${API_KEY}`, guesser)).status,
        neighbour: (await get(proxied.port, `guess-11-${API_KEY}`, '198.51.100.7')).status,
        right: (await get(proxied.port, API_KEY, guesser)).status,
      };
    } finally {
      await proxied.stop();
      await removeDir(dir);
    }
  }

  it('counts each client behind a trusted proxy apart, and ignores X-Forwarded-For without it', async () => {
    const trusted = await afterTenGuessesFrom({ TRUSTED_PROXIES: 'loopback' }, '203.0.113.5');
    const untrusted = await afterTenGuessesFrom({}, '203.0.113.5');

    expect(trusted).toEqual({ guesser: 429, neighbour: 401, right: 200 });
    expect(untrusted).toEqual({ guesser: 429, neighbour: 429, right: 200 });
  });
});
