import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import {
  EventStreamHub,
  HttpAccessShape,
  InMemoryTokenStore,
  loadConfig,
  z,
  ManualClock,
  serve,
  TokenRegistry,
  type EventStreamLimits,
  type RunningServer,
} from '../src/index.js';
import { captureLogger } from './helpers.js';
import { buildTestApp } from './test-app.js';

// Limits counted per client (wrong keys, open streams) must not let one caller shut another out: not the right key
// after wrong ones, not the admin after a limited token's streams, not everyone behind one reverse proxy.
const KEY = 'k'.repeat(40);
const SCOPES = ['admin', 'devices:read'] as const;

function appWith(options: { trustedProxies?: string[]; streams?: EventStreamLimits } = {}) {
  const clock = new ManualClock(Date.parse('2026-11-28T08:00:00Z'));
  const tokens = new TokenRegistry({ store: new InMemoryTokenStore(), clock, scopes: SCOPES });
  const hub = new EventStreamHub({ clock, heartbeatMs: 60_000, ...options.streams });
  const { app } = buildTestApp({
    apiKey: KEY,
    tokens,
    authThrottle: { clock },
    ...(options.trustedProxies ? { trustedProxies: options.trustedProxies } : {}),
    routes: (api) => {
      api.route({ method: 'get', path: '/things', summary: 'list', access: 'devices:read', responses: {}, handler: (_i, _r, res) => void res.json([]) });
      api.route({
        method: 'get',
        path: '/events',
        summary: 'stream',
        access: 'devices:read',
        responses: {},
        handler: (_i, req, res) => void hub.open(req, res),
      });
    },
  });
  return { app, clock, tokens, hub };
}

const auth = (secret: string) => ({ Authorization: `Bearer ${secret}` });
const wrongKey = (i: number) => `wrong-${i}`.padEnd(40, 'x');

async function readToken(app: ReturnType<typeof appWith>['app']): Promise<string> {
  const res = await request(app)
    .post('/tokens')
    .set(auth(KEY))
    .send({ label: 'one inbox', scopes: ['devices:read'] });
  expect(res.status).toBe(201);
  return (res.body as { secret: string }).secret;
}

let running: RunningServer | undefined;
const clients: ClientRequest[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.destroy();
  await running?.stop();
  running = undefined;
});

async function listen(app: ReturnType<typeof appWith>['app']): Promise<number> {
  running = await serve({ app, port: 0, host: '127.0.0.1', logger: captureLogger().logger, graceMs: 200 });
  return running.port;
}

/** Opens GET /events and resolves with the response head (a stream stays open until the test ends). */
function openStream(port: number, headers: Record<string, string>): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ port, host: '127.0.0.1', path: '/events', headers, agent: false }, resolve);
    req.on('error', reject);
    req.end();
    clients.push(req);
  });
}

const statusesOf = async (opened: Array<Promise<IncomingMessage>>) => (await Promise.all(opened)).map((res) => res.statusCode);

describe('wrong keys and the right one', () => {
  it('lets the valid key and a valid token through after 10 wrong keys from the same address, while wrong ones get 429', async () => {
    const { app } = appWith();
    const reader = await readToken(app);
    const guesses: number[] = [];
    for (let i = 0; i < 11; i++) guesses.push((await request(app).get('/things').set('X-API-Key', wrongKey(i))).status);

    const right = await request(app).get('/things').set('X-API-Key', KEY);
    const token = await request(app).get('/things').set(auth(reader));
    const stillWrong = await request(app).get('/things').set('X-API-Key', wrongKey(99));
    const none = await request(app).get('/things');

    expect(guesses).toEqual([...Array<number>(10).fill(401), 429]);
    expect(right.status).toBe(200);
    expect(token.status).toBe(200);
    expect(stillWrong.status).toBe(429);
    expect(stillWrong.body).toMatchObject({ code: 'TOO_MANY_AUTH_FAILURES', solution: expect.any(String) });
    expect(Number(stillWrong.headers['retry-after'])).toBe(60);
    expect(none.status).toBe(429);
  });

  it('ends the block with the window on the clock', async () => {
    const { app, clock } = appWith();
    for (let i = 0; i < 10; i++) await request(app).get('/things').set('X-API-Key', wrongKey(i));
    expect((await request(app).get('/things').set('X-API-Key', wrongKey(10))).status).toBe(429);

    clock.advance(60_000);

    expect((await request(app).get('/things').set('X-API-Key', wrongKey(11))).status).toBe(401);
  });
});

describe('TRUSTED_PROXIES and X-Forwarded-For', () => {
  const readProxies = (value: string) =>
    loadConfig(z.object({ TRUSTED_PROXIES: HttpAccessShape.TRUSTED_PROXIES }), { service: 'svc', env: { TRUSTED_PROXIES: value } });

  it('reads addresses, CIDR ranges and range names, none by default, and refuses anything else at startup', () => {
    expect(readProxies('').TRUSTED_PROXIES).toEqual([]);
    expect(readProxies(' 10.0.0.0/8, fd00::/8 ,172.18.0.2,loopback').TRUSTED_PROXIES).toEqual(['10.0.0.0/8', 'fd00::/8', '172.18.0.2', 'loopback']);
    for (const bad of ['proxy.lan', '10.0.0.0/33', '10.0.0.1/8/8', '*']) expect(() => readProxies(bad), bad).toThrow(/TRUSTED_PROXIES/);
  });

  async function blockBehind(app: ReturnType<typeof appWith>['app'], forwardedFor: string) {
    for (let i = 0; i < 10; i++) await request(app).get('/things').set('X-API-Key', wrongKey(i)).set('X-Forwarded-For', forwardedFor);
  }

  it('ignores X-Forwarded-For from a peer that is not trusted: a client cannot step out of its own block', async () => {
    const { app } = appWith();
    await blockBehind(app, '203.0.113.5');

    const other = await request(app).get('/things').set('X-API-Key', wrongKey(50)).set('X-Forwarded-For', '198.51.100.7');

    expect(other.status).toBe(429);
  });

  it('counts the client behind a trusted proxy: one guesser does not block the others', async () => {
    const { app } = appWith({ trustedProxies: ['127.0.0.1', '::1', '::ffff:127.0.0.1'] });
    await blockBehind(app, '203.0.113.5');

    const guesser = await request(app).get('/things').set('X-API-Key', wrongKey(50)).set('X-Forwarded-For', '203.0.113.5');
    const neighbour = await request(app).get('/things').set('X-API-Key', wrongKey(51)).set('X-Forwarded-For', '198.51.100.7');
    // The proxy appends the real peer: a left-most address the client wrote itself does not move it.
    const spoofed = await request(app).get('/things').set('X-API-Key', wrongKey(52)).set('X-Forwarded-For', '198.51.100.8, 203.0.113.5');

    expect(guesser.status).toBe(429);
    expect(neighbour.status).toBe(401);
    expect(spoofed.status).toBe(429);
  });

  it('takes the right-most address that is not itself a trusted proxy (a chain of two proxies)', async () => {
    const { app } = appWith({ trustedProxies: ['loopback', '10.0.0.0/8'] });
    await blockBehind(app, '203.0.113.5, 10.1.2.3');

    expect((await request(app).get('/things').set('X-API-Key', wrongKey(50)).set('X-Forwarded-For', '203.0.113.5')).status).toBe(429);
    expect((await request(app).get('/things').set('X-API-Key', wrongKey(51)).set('X-Forwarded-For', '10.1.2.3')).status).toBe(401);
  });

  it('applies to the per-address stream limit the same way', async () => {
    const untrusted = appWith({ streams: { maxStreamsPerAddress: 1 } });
    let port = await listen(untrusted.app);
    const spoofing = await statusesOf([
      openStream(port, { ...auth(KEY), 'X-Forwarded-For': '203.0.113.5' }),
      openStream(port, { ...auth(KEY), 'X-Forwarded-For': '198.51.100.7' }),
    ]);
    expect(spoofing.sort()).toEqual([200, 429]);
    for (const client of clients.splice(0)) client.destroy();
    await running?.stop();

    const trusted = appWith({ trustedProxies: ['loopback'], streams: { maxStreamsPerAddress: 1 } });
    port = await listen(trusted.app);
    const first = await openStream(port, { ...auth(KEY), 'X-Forwarded-For': '203.0.113.5' });
    const second = await openStream(port, { ...auth(KEY), 'X-Forwarded-For': '198.51.100.7' });
    const again = await openStream(port, { ...auth(KEY), 'X-Forwarded-For': '203.0.113.5' });

    expect([first.statusCode, second.statusCode, again.statusCode]).toEqual([200, 200, 429]);
  });
});

describe('stream slots per token', () => {
  it('stops a limited token at 10 streams by default and still lets the admin open one', async () => {
    const { app } = appWith({ streams: { maxStreamsPerAddress: 100 } });
    const reader = await readToken(app);
    const port = await listen(app);

    const byToken = await statusesOf(Array.from({ length: 11 }, () => openStream(port, auth(reader))));
    const admin = await openStream(port, auth(KEY));

    expect(byToken.filter((s) => s === 200)).toHaveLength(10);
    expect(byToken.filter((s) => s === 429)).toHaveLength(1);
    expect(admin.statusCode).toBe(200);
  });

  it('keeps the last slots for the admin when many limited tokens fill the rest', async () => {
    const { app } = appWith({ streams: { maxStreams: 6, maxStreamsPerToken: 2, maxStreamsPerAddress: 100, reservedForAdmin: 2 } });
    const readers = [await readToken(app), await readToken(app), await readToken(app)];
    const port = await listen(app);

    const first = await statusesOf(readers.slice(0, 2).flatMap((secret) => [openStream(port, auth(secret)), openStream(port, auth(secret))]));
    const third = await openStream(port, auth(readers[2]!));
    const admins = await statusesOf([openStream(port, auth(KEY)), openStream(port, auth(KEY))]);
    const past = await openStream(port, auth(KEY));

    expect(first).toEqual([200, 200, 200, 200]);
    expect(third.statusCode).toBe(429);
    expect(admins).toEqual([200, 200]);
    expect(past.statusCode).toBe(429);
  });
});
