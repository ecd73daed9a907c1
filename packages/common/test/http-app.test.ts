import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { AppError, z } from '../src/index.js';
import { buildTestApp, MAKE_THING } from './test-app.js';

function buildApp(apiKey?: string) {
  const { app, log } = buildTestApp({
    version: '1.2.3',
    apiKey,
    jsonLimit: '1kb',
    routes: (api) => {
      api.route({
        ...MAKE_THING,
        body: z.object({ count: z.number().int().min(0) }),
        responses: { 201: { description: 'made', schema: z.object({ id: z.string(), count: z.number() }) } },
        errors: ['DEVICE_NOT_FOUND'],
        handler: ({ params, body }, _req, res) => void res.status(201).json({ id: params.id, count: body.count }),
      });
      api.route({
        method: 'get',
        path: '/thrown',
        summary: 'throws',
        access: 'admin',
        responses: {},
        handler: () => {
          throw new AppError('DEVICE_NOT_CONTROLLABLE');
        },
      });
      api.route({
        method: 'get',
        path: '/rejected',
        summary: 'rejects',
        access: 'admin',
        responses: {},
        handler: async () => {
          await Promise.resolve();
          throw new AppError('COMMAND_BUDGET_EXHAUSTED', undefined, { retryAfterSeconds: 12.2 });
        },
      });
      api.route({
        method: 'get',
        path: '/unexpected',
        summary: 'fails unexpectedly',
        access: 'admin',
        responses: {},
        handler: () => {
          throw new Error('database password is hunter2 at /srv/secret.js:12');
        },
      });
    },
  });
  return { app, lines: log.lines, text: log.text };
}

describe('error middleware', () => {
  it('writes a thrown AppError with the status from the table', async () => {
    const res = await request(buildApp().app).get('/thrown');
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: 'Device not controllable', solution: 'Check synchronization', code: 'DEVICE_NOT_CONTROLLABLE' });
  });

  it('writes a rejected AppError and sets Retry-After', async () => {
    const res = await request(buildApp().app).get('/rejected');
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('13');
    expect(res.body.error).toBe('Command budget exhausted');
  });

  it('answers an unknown error with a generic 500 and logs it with the request id', async () => {
    const { app, text } = buildApp();
    const res = await request(app).get('/unexpected').set('X-Request-Id', 'req-500');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'Internal server error', solution: expect.any(String), code: 'INTERNAL' });
    expect(JSON.stringify(res.body)).not.toContain('hunter2');
    expect(res.text).not.toContain('secret.js');
    const logged = text();
    expect(logged).toContain('req-500');
    expect(logged).toContain('unexpected error');
  });

  it('answers malformed JSON with 400 and the error body, not HTML', async () => {
    const res = await request(buildApp().app).post('/things/1').set('Content-Type', 'application/json').send('{bad');
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.body).toEqual({ error: 'Malformed JSON body', solution: expect.any(String), code: 'MALFORMED_JSON' });
  });

  it('answers a body over the limit with 413', async () => {
    const res = await request(buildApp().app)
      .post('/things/1')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ count: 1, pad: 'x'.repeat(5000) }));
    expect(res.status).toBe(413);
    expect(res.body.error).toBe('Request body too large');
  });

  it('answers an unknown route with a JSON 404', async () => {
    const res = await request(buildApp().app).get('/nope');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'No route for GET /nope', solution: expect.any(String), code: 'ROUTE_NOT_FOUND' });
  });

  it('answers a bad percent-encoding in the path with 400, not 500', async () => {
    const res = await request(buildApp().app).post('/things/%E0%A4%A').send({ count: 1 });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual(expect.any(String));
  });
});

describe('validation', () => {
  it('accepts a valid request and passes parsed values to the handler', async () => {
    const res = await request(buildApp().app).post('/things/42').send({ count: 3 });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: '42', count: 3 });
  });

  it('rejects bad params and body with VALIDATION_FAILED details naming each field', async () => {
    const res = await request(buildApp().app).post('/things/abc').send({ count: -1 });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/params\.id/);
    expect(res.body.details.map((d: { path: string }) => d.path).sort()).toEqual(['body.count', 'params.id']);
  });

  it('rejects a missing JSON body as a validation failure, not a crash', async () => {
    const res = await request(buildApp().app).post('/things/1').set('Content-Type', 'text/plain').send('count=1');
    expect(res.status).toBe(400);
    expect(res.body.details[0].path).toBe('body.count');
  });
});

describe('request ids', () => {
  it('returns a generated X-Request-Id and logs one access line with it', async () => {
    const { app, lines } = buildApp();
    const res = await request(app).get('/health');
    const id = res.headers['x-request-id'];
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const access = lines.map((l) => JSON.parse(l)).filter((l) => l.reqId === id && l.msg === 'request completed');
    expect(access).toHaveLength(1);
    expect(access[0].status).toBe(200);
  });

  it('honours a sane incoming X-Request-Id and replaces an unsafe one', async () => {
    const { app } = buildApp();
    const kept = await request(app).get('/health').set('X-Request-Id', 'abc-123');
    expect(kept.headers['x-request-id']).toBe('abc-123');
    const replaced = await request(app).get('/health').set('X-Request-Id', 'x'.repeat(500));
    expect(replaced.headers['x-request-id']).not.toBe('x'.repeat(500));
  });
});

describe('API key authentication', () => {
  const key = 'k'.repeat(32);

  it('refuses a protected route without a key or with a wrong key', async () => {
    const { app } = buildApp(key);
    for (const headers of [{}, { 'X-API-Key': 'wrong' }, { Authorization: 'Bearer wrong' }, { Authorization: key }]) {
      const res = await request(app).post('/things/1').set(headers).send({ count: 1 });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'Missing or invalid API key or token', solution: expect.any(String), code: 'UNAUTHORIZED' });
    }
  });

  it('accepts the key as a bearer token or as X-API-Key', async () => {
    const { app } = buildApp(key);
    expect((await request(app).post('/things/1').set('Authorization', `Bearer ${key}`).send({ count: 1 })).status).toBe(201);
    expect((await request(app).post('/things/1').set('X-API-Key', key).send({ count: 1 })).status).toBe(201);
  });

  it('leaves /health, /docs and /openapi.json open', async () => {
    const { app } = buildApp(key);
    expect((await request(app).get('/health')).status).toBe(200);
    expect((await request(app).get('/openapi.json')).status).toBe(200);
    expect((await request(app).get('/docs/')).status).toBe(200);
  });

  it('never logs the key', async () => {
    const closed = buildApp(key);
    await request(closed.app).get('/health').set('Authorization', `Bearer ${key}`);
    expect(closed.text()).not.toContain(key);
  });
});

describe('API docs', () => {
  it('serves an OpenAPI 3 document generated from the route schemas', async () => {
    const res = await request(buildApp().app).get('/openapi.json');
    expect(res.body.openapi).toMatch(/^3\./);
    const op = res.body.paths['/things/{id}'].post;
    expect(op.requestBody.content['application/json'].schema.properties.count.type).toBe('integer');
    expect(op.responses['404'].content['application/json'].schema.$ref).toBe('#/components/schemas/ErrorBody');
    expect(op.responses['400']).toBeDefined();
  });

  it('serves the Swagger UI page at /docs', async () => {
    const res = await request(buildApp().app).get('/docs/');
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.text).toContain('swagger-ui');
  });
});

describe('security headers for a plain-HTTP service opened from the LAN', () => {
  it('never asks the browser to upgrade to https, and sends no header that needs a trusted origin', async () => {
    const { app } = buildApp();

    const res = await request(app).get('/docs/');

    const csp = res.headers['content-security-policy'] ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).not.toContain('upgrade-insecure-requests');
    expect(res.headers['strict-transport-security']).toBeUndefined();
    expect(res.headers['cross-origin-opener-policy']).toBeUndefined();
    expect(res.headers['origin-agent-cluster']).toBeUndefined();
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });
});
