import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { AuthThrottle, isAllowedHost, ManualClock, z } from '../src/index.js';
import { buildTestApp } from './test-app.js';

const KEY = 'k'.repeat(40);

function buildApp(options: { apiKey?: string; allowedHosts?: string[]; maxFailures?: number } = {}) {
  let writes = 0;
  const { app } = buildTestApp({
    health: { status: 'ok', service: 'test', version: '1.0.0', pid: 42, path: '/srv/data' },
    apiKey: options.apiKey,
    allowedHosts: options.allowedHosts ?? [],
    ...(options.maxFailures === undefined ? {} : { authThrottle: { maxFailures: options.maxFailures } }),
    routes: (api) => {
      api.route({ method: 'get', path: '/things', summary: 'list', access: 'admin', responses: {}, handler: (_i, _req, res) => void res.json({ writes }) });
      api.route({
        method: 'post',
        path: '/things',
        summary: 'write',
        access: 'admin',
        body: z.object({}).passthrough(),
        responses: {},
        handler: (_i, _req, res) => void res.status(201).json({ writes: ++writes }),
      });
      api.route({
        method: 'get',
        path: '/things/touch',
        summary: 'a GET that writes, as a heartbeat ping does',
        access: 'admin',
        changesState: true,
        responses: {},
        handler: (_i, _req, res) => void res.json({ writes: ++writes }),
      });
    },
  });
  return { app, writes: () => writes };
}

describe('Host check (DNS rebinding)', () => {
  it.each(['127.0.0.1:3000', '192.168.1.20', '[::1]:9095', 'localhost:3000', 'nas', 'nas.local', 'pi.lan:3000', 'hub.home.arpa', 'box.internal'])(
    'answers a request for %s',
    async (host) => {
      const res = await request(buildApp().app).get('/things').set('Host', host);
      expect(res.status).toBe(200);
    },
  );

  it.each(['evil.example', 'evil.example:3000', 'attacker.com.', '192.168.1.20.nip.io', 'a b', '[zz::1]'])(
    'refuses %s with 421 and the error body',
    async (host) => {
      const res = await request(buildApp().app).get('/things').set('Host', host);
      expect(res.status).toBe(421);
      expect(res.body).toEqual({
        error: expect.stringContaining('is not one this service answers to'),
        solution: expect.any(String),
        code: 'HOST_NOT_ALLOWED',
      });
    },
  );

  it('answers names listed in ALLOWED_HOSTS, exactly or under a leading dot', async () => {
    const { app } = buildApp({ allowedHosts: ['home.example.com', '.lab.example.org'] });
    expect((await request(app).get('/things').set('Host', 'home.example.com:3000')).status).toBe(200);
    expect((await request(app).get('/things').set('Host', 'pi.lab.example.org')).status).toBe(200);
    expect((await request(app).get('/things').set('Host', 'other.example.com')).status).toBe(421);
  });

  it("accepts this machine's own host name", () => {
    expect(isAllowedHost('server.example.net', [], 'server.example.net')).toBe(true);
    expect(isAllowedHost('server', [], 'server.example.net')).toBe(true);
    expect(isAllowedHost('other.example.net', [], 'server.example.net')).toBe(false);
  });
});

describe('writes from other web origins', () => {
  it.each([
    ['a cross-site fetch', { 'Sec-Fetch-Site': 'cross-site' }],
    ['a foreign Origin', { Origin: 'http://evil.example' }],
    ['the same host on another port', { Origin: 'http://127.0.0.1:1' }],
    ['an opaque Origin', { Origin: 'null' }],
  ])('refuses %s with 403 before any work', async (_label, headers) => {
    const built = buildApp();
    const res = await request(built.app).post('/things').set(headers).set('Host', '127.0.0.1:3000').send({});
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('CROSS_ORIGIN_REFUSED');
    expect(built.writes()).toBe(0);
  });

  it('refuses before the key is even checked, and for every write method', async () => {
    const { app } = buildApp({ apiKey: KEY });
    for (const method of ['post', 'put', 'patch', 'delete'] as const) {
      const res = await request(app)[method]('/things').set('Origin', 'http://evil.example').set('Authorization', `Bearer ${KEY}`);
      expect(res.status).toBe(403);
    }
  });

  it('accepts its own origin, same-origin fetches, and scripts that send neither header', async () => {
    const built = buildApp();
    const host = 'homelab.local:3000';
    expect((await request(built.app).post('/things').set('Host', host).set('Origin', `http://${host}`).send({})).status).toBe(201);
    expect((await request(built.app).post('/things').set('Host', host).set('Origin', `https://${host}`).send({})).status).toBe(201);
    expect((await request(built.app).post('/things').set('Host', host).set('Sec-Fetch-Site', 'same-origin').send({})).status).toBe(201);
    expect((await request(built.app).post('/things').set('Host', host).send({})).status).toBe(201);
    expect(built.writes()).toBe(4);
  });

  it('refuses a write from a page whose Referer is another site, when the browser sent neither Origin nor Fetch Metadata', async () => {
    const built = buildApp();
    const res = await request(built.app).post('/things').set('Host', 'homelab.local:3000').set('Referer', 'http://evil.example/page').send({});
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('CROSS_ORIGIN_REFUSED');
    expect(built.writes()).toBe(0);
  });

  it('lets cross-site reads through (they cannot read the answer; the Host check stops rebinding)', async () => {
    const res = await request(buildApp().app).get('/things').set('Sec-Fetch-Site', 'cross-site').set('Origin', 'http://evil.example');
    expect(res.status).toBe(200);
  });
});

describe('a GET route that changes state (changesState)', () => {
  it.each([
    ['a cross-site <img> on a loopback address (Fetch Metadata)', { 'Sec-Fetch-Site': 'cross-site' }],
    ['a foreign Origin', { Origin: 'http://evil.example' }],
    ['a page of another site as Referer (a LAN name over plain HTTP)', { Referer: 'http://evil.example:8080/cats.html' }],
    ['a page of the same host on another port as Referer', { Referer: 'http://127.0.0.1:1/' }],
  ])('refuses %s with 403 CROSS_ORIGIN_REFUSED, for GET and HEAD, before any work', async (_label, headers) => {
    const built = buildApp();
    const get = await request(built.app).get('/things/touch').set(headers).set('Host', '127.0.0.1:3000');
    const head = await request(built.app).head('/things/touch').set(headers).set('Host', '127.0.0.1:3000');
    expect([get.status, head.status]).toEqual([403, 403]);
    expect(get.body.code).toBe('CROSS_ORIGIN_REFUSED');
    expect(built.writes()).toBe(0);
  });

  it('answers cron and curl (no browser headers), its own dashboard, and an address typed in the address bar', async () => {
    const built = buildApp();
    const host = '127.0.0.1:3000';
    expect((await request(built.app).get('/things/touch').set('Host', host)).status).toBe(200);
    expect((await request(built.app).get('/things/touch').set('Host', host).set('Referer', `http://${host}/dashboard`)).status).toBe(200);
    expect((await request(built.app).get('/things/touch').set('Host', host).set('Sec-Fetch-Site', 'none')).status).toBe(200);
    expect((await request(built.app).get('/things/touch').set('Host', host).set('Sec-Fetch-Site', 'same-origin')).status).toBe(200);
    expect(built.writes()).toBe(4);
  });

  it('documents CROSS_ORIGIN_REFUSED for that GET only, not for plain reads', async () => {
    const doc = (await request(buildApp().app).get('/openapi.json')).body as {
      paths: Record<string, { get: { responses: Record<string, { description: string }> } }>;
    };
    expect(doc.paths['/things/touch']!.get.responses['403']!.description).toContain('another web origin');
    expect(doc.paths['/things']!.get.responses['403']?.description ?? '').not.toContain('another web origin');
  });
});

describe('wrong API keys', () => {
  it('blocks an address with Retry-After after the limit until the window ends', async () => {
    const clock = new ManualClock(1_000_000);
    const throttle = new AuthThrottle({ maxFailures: 3, windowMs: 60_000, clock });
    for (let i = 0; i < 3; i++) throttle.recordFailure('10.0.0.9');
    expect(throttle.blockedFor('10.0.0.9')).toBe(60);
    expect(throttle.blockedFor('10.0.0.8')).toBe(0);
    clock.advance(59_001);
    expect(throttle.blockedFor('10.0.0.9')).toBe(1);
    clock.advance(1_000);
    expect(throttle.blockedFor('10.0.0.9')).toBe(0);
  });

  it('refuses the 4th guess of an address allowed 3 with 429 and the error body, and lets the right key through', async () => {
    const { app } = buildApp({ apiKey: KEY, maxFailures: 3 });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await request(app).get('/things').set('X-API-Key', `guess-${i}`.padEnd(40, 'x'))).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    const wrong = await request(app).get('/things').set('X-API-Key', 'guess-5'.padEnd(40, 'x'));
    expect(Number(wrong.headers['retry-after'])).toBeGreaterThan(0);
    expect(wrong.body.code).toBe('TOO_MANY_AUTH_FAILURES');
    expect((await request(app).get('/things').set('X-API-Key', KEY)).status).toBe(200);
  });

  it('forgets the oldest addresses past its memory bound', () => {
    const throttle = new AuthThrottle({ maxFailures: 1, maxAddresses: 2 });
    for (const address of ['a', 'b', 'c']) throttle.recordFailure(address);
    expect([throttle.blockedFor('a'), throttle.blockedFor('b') > 0, throttle.blockedFor('c') > 0]).toEqual([0, true, true]);
  });
});

describe('paths and /health without the key', () => {
  it('needs the key on //things and answers /Things and /things/ with 404, not the route', async () => {
    const { app } = buildApp({ apiKey: KEY });
    expect((await request(app).get('//things')).status).toBe(401);
    expect((await request(app).post('/Things').set('X-API-Key', KEY).send({})).status).toBe(404);
    expect((await request(app).post('/things/').set('X-API-Key', KEY).send({})).status).toBe(404);
  });

  it('shows only status, service and version to a caller without the key', async () => {
    const { app } = buildApp({ apiKey: KEY });
    expect((await request(app).get('/health')).body).toEqual({ status: 'ok', service: 'test', version: '1.0.0' });
    expect((await request(app).get('/health').set('X-API-Key', 'wrong'.padEnd(40, 'x'))).body).toEqual({ status: 'ok', service: 'test', version: '1.0.0' });
    expect((await request(app).get('/health').set('X-API-Key', KEY)).body).toMatchObject({ pid: 42, path: '/srv/data' });
    expect((await request(buildApp().app).get('/health')).body).toMatchObject({ pid: 42 });
  });

  it('refuses JSON nested deeper than 32 levels with 400 naming the limit', async () => {
    const { app } = buildApp();
    const deep = '['.repeat(20_000) + ']'.repeat(20_000);
    const res = await request(app).post('/things').set('Content-Type', 'application/json').send(`{"a":${deep}}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'JSON_TOO_DEEP', error: expect.stringContaining('32') });
    const ok = await request(app)
      .post('/things')
      .set('Content-Type', 'application/json')
      .send(`{"a":${'['.repeat(31)}${']'.repeat(31)}}`);
    expect(ok.status).toBe(201);
  });
});
