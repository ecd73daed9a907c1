import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  describeApiKeyCases,
  expectGuessThrottle,
  routesLettingWrongKeysIn,
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

describeApiKeyCases('device-control', {
  apiKey: API_KEY,
  port: () => app.port,
  routes: () => routes,
  send,
  minProtected: 6,
  protectedPath: '/devices',
  extraTricks: ['/openapi.json/../devices/plug-1', '/events?/health'],
});

describe('device-control with API_KEY set: wrong keys', () => {
  it('switch nothing', async () => {
    const before = app.cloud.callsOf('setChannel').length;
    expect(await routesLettingWrongKeysIn(routes, send, API_KEY)).toEqual([]);
    expect(app.cloud.callsOf('setChannel')).toHaveLength(before);
  });
});

describe('device-control with API_KEY set: guessing the key', () => {
  it('refuses the wrong keys of an address with 429 and Retry-After after 10 in a minute, and lets the right key through', async () => {
    const guarded = await serveTestApp({ apiKey: API_KEY });
    try {
      await expectGuessThrottle(guarded.port, '/devices', API_KEY);
    } finally {
      await guarded.stop();
    }
  });
});
