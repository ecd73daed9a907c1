import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  anyJsonField,
  expectErrorBody,
  fetchDocumentedRoutes,
  hostileBody,
  hostileContentType,
  hostilePathSegment,
  hostileQuery,
  sendRaw,
  type RawRequest,
  type RawResponse,
} from '@homeops/test-kit';
import { THERMOSTAT_MODES } from '../../src/families/thermostat/domain/thermostat.types.js';
import { FakeDeviceCloud, thermostat } from '../fakes/fake-device-cloud.js';
import { serveTestApp, type ServedApp } from './served-app.js';

interface Route {
  method: string;
  path: string;
}

const pathParam = hostilePathSegment(['sync', 'plug-1', 'strip-1', 'offline-1', 'sensor-1', 'thermo-1']);
const query = hostileQuery(['channel', 'on']);
const body = hostileBody(
  fc
    .record({ channel: anyJsonField, on: anyJsonField, uuid: anyJsonField, mode: anyJsonField, targetTemperature: anyJsonField }, { requiredKeys: [] })
    .map((v) => JSON.stringify(v)),
  ['{"channel":1,}', '{"channel":1e999999}', '{"__proto__":{"channel":2}}', 'channel=2', '{"on":"false"}'],
);
const contentType = hostileContentType;

describe('device-control under hostile input (fake cloud, shared server)', () => {
  let app: ServedApp;
  let routes: Route[];

  beforeAll(async () => {
    const cloud = FakeDeviceCloud.withDefaults();
    cloud.addDevice(thermostat({ uuid: 'thermo-1', name: 'Hall' }));
    app = await serveTestApp({ cloud, service: { maxMessagesPerMinute: 100_000, maxMessagesPerHour: 100_000 } });
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
        fc.constantFrom('plug-1', 'strip-1', 'offline-1', 'unready-1', 'sensor-1', 'thermo-1', 'nope'),
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

  it('answers hostile thermostat reads and changes with the error body or an applied change, never a 5xx', { timeout: 60_000 }, async () => {
    const change = fc.record(
      {
        on: fc.oneof(fc.boolean(), anyJsonField),
        mode: fc.oneof(fc.constantFrom(...THERMOSTAT_MODES, 'HEAT', '', '__proto__', 'toString'), anyJsonField),
        targetTemperature: fc.oneof(fc.constantFrom(5, 21.5, 21.3, 35, 35.5, 4.5, -0, 1e308, -1e308), fc.double({ noNaN: true }), anyJsonField),
        extra: anyJsonField,
      },
      { requiredKeys: [] },
    );
    const payload = fc.oneof(
      change.map((v) => JSON.stringify(v)),
      fc.constantFrom('{"targetTemperature":1e999999}', '{"mode":"heat",}', '{"__proto__":{"on":true}}', '{}', 'null', '[]', '"heat"'),
    );
    const uuid = fc.oneof(fc.constantFrom('thermo-1', 'plug-1', 'sensor-1', 'offline-1', 'nope'), pathParam);
    const channel = fc.oneof(fc.constantFrom('0', '1', '-1', '00', '0.5', '1e3', '9007199254740993', ' 0'), pathParam);
    const statuses = new Set<number>();
    await fc.assert(
      fc.asyncProperty(uuid, channel, payload, fc.boolean(), async (device, ch, body, read) => {
        const path = `/devices/${encodeURIComponent(device)}/thermostat`;
        const res = read
          ? await assertSafe({ method: 'GET', target: Buffer.from(path, 'utf8') })
          : await assertSafe({
              method: 'PUT',
              target: Buffer.from(`${path}/${encodeURIComponent(ch)}`, 'utf8'),
              headers: [['Content-Type', 'application/json']],
              body,
            });
        statuses.add(res.status);
        if (!read && res.status === 200) expect(JSON.parse(res.body.toString('utf8'))).toMatchObject({ status: 'success', device });
      }),
      { numRuns: 300 },
    );
    // Both sides were reached: changes applied and refusals.
    expect(statuses.has(200) && statuses.has(400)).toBe(true);
    const after = await sendRaw(app.port, { method: 'GET', target: '/devices/thermo-1/thermostat' });
    expect(after.status).toBe(200);
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
