import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, fetchDocumentedRoutes, percentEncodeBytes, sendRaw, type RawRequest, type RawResponse } from '@homeops/test-kit';
import { serveTestApp, type ServedApp } from './served-app.js';

interface Route {
  method: string;
  path: string;
}

// Printable ASCII that neither ends the request line nor splits the segment goes raw; the rest is percent-encoded.
const rawSafe = (s: string) => s.length > 0 && /^[\x21-\x7e]+$/.test(s) && !/[?#/%]/.test(s);
const encodeUtf8 = (s: string) => percentEncodeBytes(Buffer.from(s, 'utf8'));

const pathParam = fc.oneof(
  fc.constantFrom(
    '..',
    '.',
    '%2e%2e',
    '..%2f..%2fetc%2fpasswd',
    '%2f',
    '%2F%2F',
    '%00',
    'a%00b',
    '%',
    '%zz',
    '%E0%A4%A',
    '%C0%AF',
    '%ff%fe',
    '~',
    '%20',
    '+',
    "'",
    '"',
    '*',
    'null',
    '__proto__',
    'constructor',
    'prototype',
    'sync',
    'plug-1',
    'strip-1',
    'offline-1',
    'sensor-1',
    '-1',
    '0',
    '00',
    '1e3',
    '999999',
    '9999999',
    '0x1',
    '1.5',
    ' 1',
    '%F0%9F%92%A9',
    '%ED%A0%80',
  ),
  fc.uint8Array({ minLength: 1, maxLength: 40 }).map(percentEncodeBytes),
  fc.string({ minLength: 1, maxLength: 30 }).filter(rawSafe),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }).map(encodeUtf8),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }).map(encodeUtf8),
  fc.integer({ min: 100, max: 4000 }).map((n) => 'a'.repeat(n)),
  fc.integer({ min: -5, max: 10_000_000 }).map(String),
);
const query = fc
  .array(
    fc.tuple(
      fc.oneof(fc.constantFrom('channel', 'on', '__proto__', 'a[b]', ''), fc.stringMatching(/^[a-z]{1,8}$/)),
      fc.oneof(fc.constantFrom('1', 'true', '%', '%zz', '%00', 'a'.repeat(5000)), fc.uint8Array({ maxLength: 20 }).map(percentEncodeBytes)),
    ),
    { maxLength: 5 },
  )
  .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`));
const anyField = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(-1, 0, 1, 3, 2 ** 31, 2 ** 53, -0, 1.5, '0', 'true', 'on'),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 3 }),
);
const body = fc.oneof(
  fc.constant(undefined),
  fc.constant(''),
  fc.json({ maxDepth: 3 }),
  fc.record({ channel: anyField, on: anyField, uuid: anyField }, { requiredKeys: [] }).map((v) => JSON.stringify(v)),
  fc.json({ maxDepth: 2 }).map((s) => s.slice(0, Math.max(0, s.length - 1))),
  fc.uint8Array({ maxLength: 2048 }).map((b) => Buffer.from(b)),
  fc.constantFrom(
    '{"channel":1,}',
    '{"channel":1e999999}',
    '['.repeat(5000),
    '\uFEFF{}',
    'null',
    '"x"',
    '[]',
    '{"__proto__":{"channel":2}}',
    'channel=2',
    '{"on":"false"}',
  ),
);
const contentType = fc.constantFrom(
  undefined,
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'application/json; charset=bogus',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'multipart/form-data; boundary=xyz',
  'application/xml',
  '',
  ';;;',
  'APPLICATION/JSON',
);

describe('device-control under hostile input (fake cloud, shared server)', () => {
  let app: ServedApp;
  let routes: Route[];

  beforeAll(async () => {
    app = await serveTestApp({ service: { maxMessagesPerMinute: 100_000, maxMessagesPerHour: 100_000 } });
    routes = await fetchDocumentedRoutes(app.port);
  });

  afterAll(async () => {
    await app?.stop();
  });

  async function assertSafe(request: RawRequest): Promise<RawResponse> {
    const context = `${request.method} ${request.target.toString().slice(0, 200)}`;
    const res = await sendRaw(app.port, request, 5_000);
    expect(res.status, `${context} answered ${res.status}: ${res.body.toString('utf8').slice(0, 300)}`).toBeLessThan(500);
    if (res.status >= 400 && request.method !== 'HEAD') expectErrorBody(res, context);
    return res;
  }

  it('lists the routes it serves in /openapi.json', () => {
    expect(routes.length).toBeGreaterThanOrEqual(7);
  });

  it('answers hostile path parameters on every route without a 5xx', { timeout: 60_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 1_000 }), pathParam, pathParam, query, async (pick, a, b, q) => {
        const route = routes[pick % routes.length]!;
        let n = 0;
        const target = route.path.replace(/\{\w+\}/g, () => (n++ === 0 ? a : b)) + q;
        const hasBody = route.method === 'POST' || route.method === 'PUT';
        await assertSafe({
          method: route.method,
          target: Buffer.from(target, 'utf8'),
          ...(hasBody ? { headers: [['Content-Type', 'application/json']] as Array<[string, string]>, body: '{"channel":0,"on":true}' } : {}),
        });
      }),
      { numRuns: 250 },
    );
  });

  it('answers random bodies, content types and methods on every route without a 5xx', { timeout: 60_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 1_000 }),
        fc.oneof(fc.constant(undefined), fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD')),
        fc.constantFrom('plug-1', 'strip-1', 'offline-1', 'unready-1', 'sensor-1', 'nope'),
        body,
        contentType,
        query,
        async (pick, method, uuid, payload, type, q) => {
          const route = routes[pick % routes.length]!;
          const target = route.path.replace('{uuid}', uuid).replace('{channel}', String(pick % 6)) + q;
          const headers: Array<[string, string]> = type === undefined ? [] : [['Content-Type', type]];
          await assertSafe({ method: method ?? route.method, target, headers, ...(payload === undefined ? {} : { body: payload }) });
        },
      ),
      { numRuns: 250 },
    );
  });

  it('refuses a body over the JSON limit with 413 and the error body on every route that takes one', async () => {
    for (const route of routes.filter((r) => r.method !== 'GET')) {
      const target = route.path.replace('{uuid}', 'plug-1').replace('{channel}', '0');
      const res = await assertSafe({
        method: route.method,
        target,
        headers: [['Content-Type', 'application/json']],
        body: JSON.stringify({ pad: 'x'.repeat(200 * 1024) }),
      });
      expect(res.status, `${route.method} ${target}`).toBe(413);
    }
  });

  it('answers requests that Node refuses to parse with a 4xx and the error body', async () => {
    for (const target of [Buffer.from('/devices/caf\u00e9', 'utf8'), `/devices/${'a'.repeat(20_000)}`]) {
      const res = await sendRaw(app.port, { method: 'GET', target });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expectErrorBody(res, `GET ${target.toString().slice(0, 40)}`);
    }
  });

  it('still serves afterwards', async () => {
    const res = await sendRaw(app.port, { method: 'GET', target: '/devices' });
    expect(res.status).toBe(200);
  });
});
