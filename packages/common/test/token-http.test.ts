import { request as httpRequest, type IncomingMessage } from 'node:http';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { AppMetrics, EventStreamHub, InMemoryTokenStore, ManualClock, routeTableOf, serve, TokenRegistry, type RunningServer } from '../src/index.js';
import { captureLogger } from './helpers.js';
import { buildTestApp } from './test-app.js';

// Scoped tokens through the HTTP baseline: who gets 401 and who 403, the token routes, /metrics, and streams that end
// with their token.
const KEY = 'k'.repeat(40);
const SCOPES = ['admin', 'metrics', 'devices:read', 'devices:control'] as const;

function appWith(clock = new ManualClock(Date.parse('2026-11-26T08:00:00Z'))) {
  const tokens = new TokenRegistry({ store: new InMemoryTokenStore(), clock, scopes: SCOPES });
  const hub = new EventStreamHub({ clock, heartbeatMs: 60_000 });
  const { app, log } = buildTestApp({
    health: { status: 'ok', service: 'test', version: '1', path: '/srv/data', recipients: ['alice', 'bob'] },
    apiKey: KEY,
    tokens,
    metrics: new AppMetrics(),
    authThrottle: { maxFailures: 1000 },
    routes: (api) => {
      api.route({
        method: 'get',
        path: '/things',
        summary: 'list',
        access: 'devices:read',
        responses: { 200: { description: 'ok' } },
        handler: (_i, _r, res) => void res.json([]),
      });
      api.route({
        method: 'get',
        path: '/events',
        summary: 'stream',
        access: 'devices:read',
        responses: { 200: { description: 'stream' } },
        handler: (_i, req, res) => void hub.open(req, res),
      });
      api.route({
        method: 'get',
        path: '/whoever',
        summary: 'any caller',
        access: 'authenticated',
        responses: { 200: { description: 'ok' } },
        handler: (_i, _r, res) => void res.json({}),
      });
    },
  });
  return { app, tokens, clock, hub, log };
}

const bearer = (secret: string) => ({ Authorization: `Bearer ${secret}` });

async function tokenFor(app: ReturnType<typeof appWith>['app'], scopes: unknown[], extra: object = {}) {
  const res = await request(app)
    .post('/tokens')
    .set(bearer(KEY))
    .send({ label: 'test', scopes, ...extra });
  expect(res.status).toBe(201);
  return res.body as { token: { id: string }; secret: string };
}

let running: RunningServer | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

describe('scoped tokens over HTTP', () => {
  it('answers 401 alike for no token and an unknown one, and 403 naming the scope a token lacks', async () => {
    const { app } = appWith();
    const metricsOnly = await tokenFor(app, ['metrics']);

    const missing = await request(app).get('/things');
    const unknown = await request(app)
      .get('/things')
      .set(bearer(`hop_000000000000_${'A'.repeat(43)}`));
    const lacking = await request(app).get('/things').set(bearer(metricsOnly.secret));

    expect(missing.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual(missing.body);
    expect(lacking.status).toBe(403);
    expect(lacking.body).toEqual({
      code: 'SCOPE_MISSING',
      error: 'This token lacks the devices:read scope',
      solution: expect.stringContaining('devices:read'),
    });
    expect((await request(app).get('/metrics').set(bearer(metricsOnly.secret))).status).toBe(200);
    expect((await request(app).get('/whoever').set(bearer(metricsOnly.secret))).status).toBe(200);
  });

  it("shows /health's details to the key and admin tokens only", async () => {
    const { app } = appWith();
    const reader = await tokenFor(app, ['devices:read']);
    const admin = await tokenFor(app, ['admin']);
    const short = { status: 'ok', service: 'test', version: '1' };
    expect((await request(app).get('/health')).body).toEqual(short);
    expect((await request(app).get('/health').set(bearer(reader.secret))).body).toEqual(short);
    expect((await request(app).get('/health').set(bearer(admin.secret))).body).toMatchObject({ path: '/srv/data', recipients: ['alice', 'bob'] });
    expect((await request(app).get('/health').set(bearer(KEY))).body).toMatchObject({ path: '/srv/data' });
  });

  it('lets only admins manage tokens, shows a secret once and never a hash', async () => {
    const { app } = appWith();
    const reader = await tokenFor(app, ['devices:read'], { expiresInDays: 30 });
    const admin = await tokenFor(app, ['admin']);

    const created = await request(app)
      .post('/tokens')
      .set(bearer(admin.secret))
      .send({ label: 'ha', scopes: [{ scope: 'devices:control', exceptFamilies: ['garageDoor'] }] });
    const refused = await request(app)
      .post('/tokens')
      .set(bearer(reader.secret))
      .send({ label: 'x', scopes: ['admin'] });
    const list = await request(app).get('/tokens').set(bearer(KEY));
    const me = await request(app).get('/auth/me').set(bearer(reader.secret));

    expect(created.status).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    expect(refused.status).toBe(403);
    expect(list.body.tokens).toHaveLength(3);
    expect(JSON.stringify(list.body)).not.toMatch(/hop_|hash/);
    expect(list.body.tokens[0]).toMatchObject({ label: 'test', scopes: [{ scope: 'devices:read' }], expiresAt: '2026-12-26T08:00:00.000Z' });
    expect(me.body).toEqual({ kind: 'token', label: 'test', scopes: [{ scope: 'devices:read' }] });
    expect((await request(app).get('/auth/me').set(bearer(KEY))).body).toEqual({ kind: 'key', label: 'API_KEY', scopes: [{ scope: 'admin' }] });
  });

  it('refuses bad token bodies with the fields named, an expiry in the past, and an unknown id', async () => {
    const { app } = appWith();
    const past = await request(app)
      .post('/tokens')
      .set(bearer(KEY))
      .send({ label: 'x', scopes: ['metrics'], expiresAt: '2020-01-01T00:00:00Z' });
    const foreign = await request(app)
      .post('/tokens')
      .set(bearer(KEY))
      .send({ label: 'x', scopes: ['notifications:send'] });
    const bad = await request(app)
      .post('/tokens')
      .set(bearer(KEY))
      .send({ label: '', scopes: ['root'], extra: 1 });
    const unknown = await request(app).delete('/tokens/0123456789ab').set(bearer(KEY));

    expect([past.status, foreign.status, bad.status, unknown.status]).toEqual([400, 400, 400, 404]);
    expect(past.body.details).toEqual([{ path: 'body.expiresAt', message: 'must lie in the future' }]);
    expect(foreign.body.error).toContain('notifications:send is not a scope of this service');
    expect(bad.body.details.map((d: { path: string }) => d.path)).toEqual(expect.arrayContaining(['body.label', 'body.scopes.0']));
    expect(unknown.body.code).toBe('TOKEN_NOT_FOUND');
  });

  it('refuses a revoked, rotated or expired token on the next request', async () => {
    const { app, clock } = appWith();
    const revoked = await tokenFor(app, ['devices:read']);
    const rotated = await tokenFor(app, ['devices:read']);
    const expiring = await tokenFor(app, ['devices:read'], { expiresAt: new Date(clock.now() + 1_000).toISOString() });

    await request(app).delete(`/tokens/${revoked.token.id}`).set(bearer(KEY)).expect(204);
    const next = await request(app).post(`/tokens/${rotated.token.id}/rotate`).set(bearer(KEY)).expect(200);
    expect((await request(app).get('/things').set(bearer(expiring.secret))).status).toBe(200);
    clock.advance(1_000);

    for (const secret of [revoked.secret, rotated.secret, expiring.secret]) expect((await request(app).get('/things').set(bearer(secret))).status).toBe(401);
    expect((await request(app).get('/things').set(bearer(next.body.secret))).status).toBe(200);
  });

  it('lists every route with its access, /metrics and the token routes included', () => {
    const { app } = appWith();
    const table = routeTableOf(app).map((r) => `${r.method.toUpperCase()} ${r.path} ${r.access}`);
    expect(table).toEqual(
      expect.arrayContaining([
        'GET /things devices:read',
        'GET /metrics metrics',
        'POST /tokens admin',
        'DELETE /tokens/{id} admin',
        'GET /auth/me authenticated',
      ]),
    );
  });

  it('ends an open stream as its token is revoked', async () => {
    const { app, hub } = appWith();
    running = await serve({ app, port: 0, host: '127.0.0.1', logger: captureLogger().logger, graceMs: 200 });
    const port = running.port;
    const reader = await tokenFor(app, ['devices:read']);
    const stream = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = httpRequest({ port, host: '127.0.0.1', path: '/events', headers: bearer(reader.secret), agent: false }, resolve);
      req.on('error', reject);
      req.end();
    });
    expect(stream.statusCode).toBe(200);
    const ended = new Promise<void>((resolve) => stream.on('close', resolve).resume());
    expect(hub.size).toBe(1);

    expect((await fetch(`http://127.0.0.1:${port}/tokens/${reader.token.id}`, { method: 'DELETE', headers: bearer(KEY) })).status).toBe(204);

    // Ended by the revoke itself, before it answered (no sweep later); the client then sees the end.
    expect(hub.size).toBe(0);
    await ended;
  });

  it('never logs a token secret', async () => {
    const { app, log } = appWith();
    const created = await tokenFor(app, ['devices:read']);
    await request(app).get('/things').set(bearer(created.secret));
    await request(app).get('/things').set('X-API-Key', `${created.secret}x`);
    await request(app).post(`/tokens/${created.token.id}/rotate`).set(bearer(KEY));
    expect(log.text()).not.toContain('hop_');
    expect(log.text()).not.toContain(KEY);
  });
});

describe('the OpenAPI document', () => {
  it('names the access of every operation and documents 401 and 403 where they can happen', async () => {
    const { app } = appWith();
    const doc = (await request(app).get('/openapi.json')).body as {
      paths: Record<string, Record<string, { 'x-required-scope'?: string; responses: Record<string, unknown>; security: unknown[] }>>;
    };
    const things = doc.paths['/things']!.get!;
    expect(things['x-required-scope']).toBe('devices:read');
    expect(Object.keys(things.responses)).toEqual(expect.arrayContaining(['401', '403']));
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) expect(operation['x-required-scope'], `${method} ${path}`).toBeDefined();
    }
  });
});
