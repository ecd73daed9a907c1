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
import { hashDir, makeStorageDir, removeDir, startRealService, type RunningTestService } from './running-service.js';

interface Route {
  method: string;
  path: string;
}

// Text that cannot be percent-encoded (encodeURIComponent throws on it).
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const pathParam = hostilePathSegment(['single', 'stream', 'read-all']);
const query = hostileQuery(['unread', 'limit', 'before', 'limit[]', 'unread[a]']);
const notificationLike = fc.record(
  {
    recipient: anyJsonField,
    title: anyJsonField,
    message: anyJsonField,
    priority: fc.oneof(fc.integer({ min: -3, max: 3 }), anyJsonField),
    sound: fc.oneof(fc.constantFrom('pushover', 'none', 'siren', '../x'), anyJsonField),
    url: fc.oneof(fc.constantFrom('https://example.com', 'javascript:alert(1)', 'http://', 'file:///etc/passwd'), anyJsonField),
    html: anyJsonField,
    ttl: anyJsonField,
    device: anyJsonField,
    attachment: fc.oneof(
      anyJsonField,
      fc.record({ filename: anyJsonField, contentType: anyJsonField, data: fc.oneof(fc.base64String({ maxLength: 64 }), anyJsonField) }, { requiredKeys: [] }),
    ),
    channel: anyJsonField,
    on: anyJsonField,
    // An escalation chain: steps near the rules (60 s and more, increasing, at most 5) and anything else.
    escalate: fc.oneof(
      anyJsonField,
      fc.array(
        fc.record(
          {
            recipient: fc.oneof(fc.constantFrom('alice', 'bob', '', '__proto__'), anyJsonField),
            afterSeconds: fc.oneof(fc.integer({ min: -1, max: 20_000 }), fc.constantFrom(59, 60, 1e308, 0.5), anyJsonField),
          },
          { requiredKeys: [] },
        ),
        { maxLength: 7 },
      ),
    ),
  },
  { requiredKeys: [] },
);
const body = hostileBody(
  notificationLike.map((v) => JSON.stringify(v)),
  ['{"recipient":"a","message":"b",}', '{"__proto__":{"recipient":"a"},"message":"b"}', '{"constructor":{"prototype":{"x":1}},"recipient":"a","message":"b"}'],
);
const contentType = hostileContentType;

describe('notifications under hostile input (real service, real YAML history)', () => {
  let service: RunningTestService;
  let routes: Route[];
  const acknowledged = new Map<string, unknown>();

  beforeAll(async () => {
    service = await startRealService(await makeStorageDir());
    routes = await fetchDocumentedRoutes(service.port);
    // Some history to hit, so reads and deletes find records.
    for (const recipient of ['alice', 'bob']) {
      const res = await sendRaw(service.port, {
        method: 'POST',
        target: '/notifications',
        headers: [['Content-Type', 'application/json']],
        body: JSON.stringify({ recipient, message: 'seed' }),
      });
      expect(res.status).toBe(201);
    }
  });

  afterAll(async () => {
    await service?.stop();
    if (service) await removeDir(service.dir);
  });

  /** Sends the request; asserts no 5xx, an answer in bounded time, the error body on failure and no disk change on a rejection. */
  async function assertSafe(request: RawRequest): Promise<RawResponse> {
    const context = `${request.method} ${request.target.toString()}`;
    const before = await hashDir(service.dir);
    const res = await sendRaw(service.port, request, 5_000);
    expect(res.status, `${context} answered ${res.status}: ${res.body.toString('utf8').slice(0, 300)}`).toBeLessThan(500);
    if (res.status >= 400) {
      if (request.method !== 'HEAD') expectErrorBody(res, context);
      expect(await hashDir(service.dir), `${context}: the history changed on a ${res.status}`).toBe(before);
    }
    if (request.method === 'POST' && res.status === 201) {
      const record = JSON.parse(res.body.toString('utf8')) as { id: string };
      acknowledged.set(record.id, record);
    }
    return res;
  }

  it('lists the routes it serves in /openapi.json', () => {
    expect(routes.length).toBeGreaterThanOrEqual(8);
  });

  it('answers hostile path parameters on every route without a 5xx or a disk change', { timeout: 60_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 1_000 }), pathParam, pathParam, query, async (pick, a, b, q) => {
        const route = routes[pick % routes.length]!;
        let n = 0;
        const target = route.path.replace(/\{\w+\}/g, () => (n++ === 0 ? a : b)) + q;
        await assertSafe({ method: route.method, target: Buffer.from(target, 'utf8') });
      }),
      { numRuns: 250 },
    );
  });

  it('answers random bodies, content types and methods on every route without a 5xx or a disk change', { timeout: 60_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 1_000 }),
        fc.oneof(fc.constant(undefined), fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD')),
        body,
        contentType,
        query,
        async (pick, method, payload, type, q) => {
          const route = routes[pick % routes.length]!;
          const target = route.path.replace(/\{(\w+)\}/g, (_m, name: string) => (name === 'recipient' ? 'alice' : 'no-such-id')) + q;
          const headers: Array<[string, string]> = type === undefined ? [] : [['Content-Type', type]];
          await assertSafe({ method: method ?? route.method, target, headers, ...(payload === undefined ? {} : { body: payload }) });
        },
      ),
      { numRuns: 250 },
    );
  });

  it('answers multipart garbage on POST /notifications without a 5xx or a disk change', { timeout: 30_000 }, async () => {
    const part = fc.record({
      name: fc.constantFrom('recipient', 'message', 'title', 'priority', 'attachment', 'html', 'ttl', '', '__proto__', 'x'.repeat(300)),
      filename: fc.option(fc.constantFrom('a.png', '../../etc/passwd', '', 'é.txt', '%00')),
      type: fc.option(fc.constantFrom('image/png', 'text/plain', 'application/x-msdownload', '')),
      value: fc.oneof(
        fc.string({ maxLength: 50 }),
        fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b).toString('latin1')),
      ),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(part, { maxLength: 5 }),
        fc.boolean(),
        fc.constantFrom('xyz', 'a b', '-'.repeat(80), ''),
        async (parts, terminate, boundary) => {
          const lines = parts.map((p) =>
            [
              `--${boundary}`,
              `Content-Disposition: form-data; name="${p.name}"${p.filename === null ? '' : `; filename="${p.filename}"`}`,
              ...(p.type === null ? [] : [`Content-Type: ${p.type}`]),
              '',
              p.value,
            ].join('\r\n'),
          );
          const payload = Buffer.from(`${lines.join('\r\n')}\r\n${terminate ? `--${boundary}--\r\n` : ''}`, 'latin1');
          await assertSafe({
            method: 'POST',
            target: '/notifications',
            headers: [['Content-Type', `multipart/form-data; boundary=${boundary}`]],
            body: payload,
          });
        },
      ),
      { numRuns: 150 },
    );
  });

  it('refuses bodies over the limits with 413 and the error body, on every route that reads one', { timeout: 30_000 }, async () => {
    const big = (bytes: number) => JSON.stringify({ recipient: 'alice', message: 'x', title: 'y'.repeat(bytes) });
    const cases: RawRequest[] = [
      { method: 'POST', target: '/notifications', headers: [['Content-Type', 'application/json']], body: big(8 * 1024 * 1024) },
      ...routes
        .filter((r) => r.method !== 'GET' && r.path !== '/notifications')
        .map((r) => ({
          method: r.method,
          target: r.path.replace(/\{(\w+)\}/g, (_m, name: string) => (name === 'recipient' ? 'alice' : 'no-such-id')),
          headers: [['Content-Type', 'application/json']] as Array<[string, string]>,
          body: big(200 * 1024),
        })),
    ];
    for (const request of cases) {
      const res = await assertSafe(request);
      expect(res.status, `${request.method} ${request.target.toString()}`).toBe(413);
    }
  });

  it('answers JSON nested deeper than 32 levels with 400 JSON_TOO_DEEP on every route that reads a body, and keeps serving', { timeout: 30_000 }, async () => {
    // 30,000 deep fits the 100 KiB limit of the other routes; a byte that is not UTF-8 sent the old report into its recursion.
    const deep = Buffer.concat([Buffer.from(`{"x":${'['.repeat(30_000)}"`), Buffer.from([0xff]), Buffer.from(`"${']'.repeat(30_000)}}`)]);
    const targets = routes
      .filter((r) => r.method !== 'GET')
      .map((r) => ({ method: r.method, target: r.path.replace(/\{(\w+)\}/g, (_m, name: string) => (name === 'recipient' ? 'alice' : 'no-such-id')) }));
    for (const { method, target } of targets) {
      const res = await assertSafe({ method, target, headers: [['Content-Type', 'application/json']], body: deep });
      expect({ route: `${method} ${target}`, status: res.status, code: (JSON.parse(res.body.toString('utf8')) as { code: string }).code }).toEqual({
        route: `${method} ${target}`,
        status: 400,
        code: 'JSON_TOO_DEEP',
      });
    }
    expect((await sendRaw(service.port, { method: 'GET', target: '/health' })).status).toBe(200);
  });

  it('answers emergencies with hostile escalation steps with 201 or the error body, never a 5xx', { timeout: 60_000 }, async () => {
    const step = fc.record(
      {
        recipient: fc.oneof(fc.constantFrom('alice', 'bob', '', ' ', '__proto__', 'constructor', 'x'.repeat(300)), anyJsonField),
        afterSeconds: fc.oneof(fc.integer({ min: -1, max: 20_000 }), fc.constantFrom(59, 60, 61, 0.5, 1e308, -0), anyJsonField),
        extra: anyJsonField,
      },
      { requiredKeys: ['recipient', 'afterSeconds'] },
    );
    const valid = fc
      .uniqueArray(fc.integer({ min: 60, max: 10_800 }), { minLength: 1, maxLength: 5 })
      .chain((waits) =>
        fc
          .tuple(...waits.map(() => fc.constantFrom('alice', 'bob')))
          .map((who) => [...waits].sort((a, b) => a - b).map((afterSeconds, i) => ({ recipient: who[i], afterSeconds }))),
      );
    const chains = fc.oneof(valid, fc.array(step, { maxLength: 7 }), anyJsonField);
    const statuses = new Set<number>();
    await fc.assert(
      fc.asyncProperty(chains, fc.constantFrom(2, 1, '2'), async (escalate, priority) => {
        const res = await assertSafe({
          method: 'POST',
          target: '/notifications',
          headers: [['Content-Type', 'application/json']],
          body: JSON.stringify({ recipient: 'alice', title: 'Leak', message: 'Water', priority, escalate }),
        });
        statuses.add(res.status);
        if (res.status === 201) expect(JSON.parse(res.body.toString('utf8'))).toMatchObject({ escalation: { step: 0 } });
      }),
      { numRuns: 200 },
    );
    // Both sides of the rules were reached: some chains were started, some refused.
    expect([...statuses].sort()).toEqual([201, 400]);
  });

  it('answers an empty body with a JSON content type as a validation failure, not a crash', async () => {
    const res = await assertSafe({ method: 'POST', target: '/notifications', headers: [['Content-Type', 'application/json']], body: '' });
    expect(res.status).toBe(400);
  });

  it('stores hostile but valid text exactly as sent and finds it again by recipient', { timeout: 60_000 }, async () => {
    const yamlish = fc.constantFrom(
      '- x',
      ': y',
      '&a',
      '*a',
      '!!js/function f',
      '!binary AAAA',
      '%TAG ! x',
      '---',
      '...',
      '? k',
      '| x',
      '> x',
      '# c',
      '"',
      "'",
      '\u0000',
      'a\u0000b',
      '\u2028',
      '\u2029',
      '\uFEFF',
      '\r',
      '\r\n',
      '\t',
      '\u0085',
      '\u00a0',
      'null',
      '~',
      'true',
      '0x10',
      '1e3',
      '<<',
      '@',
      '`',
      '{a: 1}',
      '[1, 2]',
      'x'.repeat(256),
      '\uD83D\uDCA9',
      '\uD800',
      '\uDFFF',
      'é',
      '\u202Eevil',
    );
    const text = (max: number) =>
      fc.array(fc.oneof(yamlish, fc.string({ unit: 'binary', maxLength: 8 })), { minLength: 1, maxLength: 4 }).map((parts) => parts.join('').slice(0, max));
    const nonEmpty = (max: number) => text(max).filter((v) => v.length > 0);
    await fc.assert(
      fc.asyncProperty(
        fc.record({ recipient: nonEmpty(256), title: text(250), message: nonEmpty(1024), device: fc.option(nonEmpty(250), { nil: undefined }) }),
        async (fields) => {
          const res = await assertSafe({
            method: 'POST',
            target: '/notifications',
            headers: [['Content-Type', 'application/json']],
            body: JSON.stringify(fields),
          });
          if (res.status !== 201) return; // a refusal is fine (checked by assertSafe); a 201 must keep the text exactly
          const created = JSON.parse(res.body.toString('utf8')) as { id: string } & typeof fields;
          expect({ recipient: created.recipient, title: created.title, message: created.message }).toEqual({
            recipient: fields.recipient,
            title: fields.title,
            message: fields.message,
          });
          const single = await sendRaw(service.port, { method: 'GET', target: `/notifications/single/${created.id}` });
          expect(JSON.parse(single.body.toString('utf8'))).toEqual(created);
          if (!LONE_SURROGATE.test(fields.recipient)) {
            const list = await sendRaw(service.port, { method: 'GET', target: `/notifications/${encodeURIComponent(fields.recipient)}?limit=500` });
            expect(list.status).toBe(200);
            expect((JSON.parse(list.body.toString('utf8')) as Array<{ id: string }>).map((n) => n.id)).toContain(created.id);
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('still serves, and the history it acknowledged loads again after a restart', { timeout: 30_000 }, async () => {
    const health = await sendRaw(service.port, { method: 'GET', target: '/health' });
    expect(health.status).toBe(200);
    const { dir } = service;
    await service.stop();
    service = await startRealService(dir);
    for (const [id, record] of acknowledged) {
      const res = await sendRaw(service.port, { method: 'GET', target: `/notifications/single/${encodeURIComponent(id)}` });
      expect(res.status, `acknowledged ${id}`).toBe(200);
      expect(JSON.parse(res.body.toString('utf8'))).toEqual(record);
    }
  });
});

describe('notifications at the HTTP parser level', () => {
  let service: RunningTestService;

  beforeAll(async () => {
    service = await startRealService(await makeStorageDir());
  });

  afterAll(async () => {
    await service?.stop();
    if (service) await removeDir(service.dir);
  });

  it('answers raw non-ASCII bytes in the request target with a 4xx and the error body', async () => {
    const res = await sendRaw(service.port, { method: 'GET', target: Buffer.from('/notifications/caf\u00e9', 'utf8') });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expectErrorBody(res, 'GET /notifications/café (raw UTF-8)');
  });

  it('answers a path longer than the header limit with a 4xx and the error body', async () => {
    const res = await sendRaw(service.port, { method: 'GET', target: `/notifications/${'a'.repeat(20_000)}` });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expectErrorBody(res, 'GET /notifications/<20,000 chars>');
  });
});
