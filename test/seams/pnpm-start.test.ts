import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, freePort, Mosquitto, ServiceProcess } from '../../packages/test-kit/src/index.js';
import { startFakePushoverApi } from '../../services/notifications/test/pushover/fake-pushover-api.js';

// Both services as the README's `pnpm start` runs them: one working directory, so one ./data folder for both (every
// path at its default), one environment, every feature on: tokens, MQTT (a real Mosquitto), metrics, plans, watches
// and hooks. Each service is restarted in turn, as a user does after an upgrade or a crash, and the seams between
// the two are checked: whose token works where, what stays revoked, which data files are still there.
const KEY = randomBytes(24).toString('base64url');
const PUSHOVER_TOKEN = 'aPpToKeN0000000000000000000001';
const FAMILY = 'fAmIlY0000000000000000000000f1';
const GARAGE = 'sim-garage-0001';

type Service = 'device-control' | 'notifications';
let cwd: string;
let broker: Mosquitto;
let fake: Awaited<ReturnType<typeof startFakePushoverApi>>;
const ports: Record<Service, number> = { 'device-control': 0, notifications: 0 };
const running: Partial<Record<Service, ServiceProcess>> = {};
const env: Record<string, string> = {};
let output = '';

async function start(service: Service): Promise<void> {
  running[service] = await ServiceProcess.start({ service, cwd, env: { ...env, PORT: String(ports[service]) }, readyTimeoutMs: 40_000 });
}

async function restart(service: Service): Promise<void> {
  const old = running[service]!;
  expect(await old.stop()).toEqual({ code: 0, signal: null });
  output += old.output;
  await start(service);
}

const url = (service: Service, path: string) => `http://127.0.0.1:${ports[service]}${path}`;

async function call(service: Service, bearer: string, method: string, path: string, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${bearer}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return fetch(url(service, path), { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
}

async function makeToken(service: Service, label: string, scopes: unknown[]): Promise<{ id: string; secret: string }> {
  const res = await call(service, KEY, 'POST', '/tokens', { label, scopes });
  expect(res.status).toBe(201);
  const { token, secret } = (await res.json()) as { token: { id: string }; secret: string };
  return { id: token.id, secret };
}

/** The status each token gets at a route of each service that the token's own scopes allow. */
async function statuses(tokens: Record<string, { secret: string }>): Promise<Record<string, [number, number]>> {
  const seen: Record<string, [number, number]> = {};
  for (const [name, { secret }] of Object.entries(tokens)) {
    const at = (service: Service) => call(service, secret, 'GET', '/auth/me').then((res) => res.status);
    seen[name] = [await at('device-control'), await at('notifications')];
  }
  return seen;
}

beforeAll(async () => {
  cwd = mkdtempSync(join(tmpdir(), 'pnpm-start-'));
  broker = await Mosquitto.start();
  fake = await startFakePushoverApi({ token: PUSHOVER_TOKEN, users: { [FAMILY]: ['phone'] } });
  ports['device-control'] = await freePort();
  ports.notifications = await freePort();
  Object.assign(env, {
    API_KEY: KEY,
    CLOUD_BACKEND: 'simulator',
    MQTT_URL: broker.url,
    METRICS: 'on',
    PROVIDER_USER_KEY: FAMILY,
    PROVIDER_API_TOKEN: PUSHOVER_TOKEN,
    PROVIDER_API_URL: fake.url,
    RECIPIENTS: `family=${FAMILY}`,
    NOTIFY_URL: url('notifications', ''),
  });
  await start('notifications');
  // The watches' send token goes into the shared environment, as a user puts it into the one .env.
  env.NOTIFY_TOKEN = (await makeToken('notifications', 'watches', [{ scope: 'notifications:send', recipients: ['family'] }])).secret;
  await start('device-control');
}, 120_000);

afterAll(async () => {
  await Promise.all(Object.values(running).map((service) => service?.stop()));
  await broker?.stop();
  await fake?.close();
  if (cwd) rmSync(cwd, { recursive: true, force: true });
}, 60_000);

describe('both services as pnpm start runs them, on one data folder', () => {
  it("keeps each service's tokens through either's restart, refuses each at the other, and keeps what was revoked revoked", { timeout: 240_000 }, async () => {
    // Arrange: every feature in use, a token of each kind at each service.
    for (const service of ['device-control', 'notifications'] as const) {
      await eventually(async () => ((await (await call(service, KEY, 'GET', '/health')).json()) as { mqtt?: { state: string } }).mqtt?.state === 'connected', {
        what: `${service}'s MQTT bridge connected`,
        timeoutMs: 20_000,
      });
    }
    const tokens = {
      deviceAdmin: await makeToken('device-control', 'device admin', ['admin']),
      lamp: await makeToken('device-control', 'lamp', [{ scope: 'devices:control', families: ['switch'] }]),
      phone: await makeToken('notifications', 'phone', [{ scope: 'notifications:send', recipients: ['family'] }]),
      notificationsAdmin: await makeToken('notifications', 'notifications admin', ['admin']),
      scraper: await makeToken('notifications', 'scraper', ['metrics']),
    };
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString();
    expect((await call('notifications', KEY, 'PUT', '/scheduled/bins', { recipient: 'family', message: 'Take the bins out', sendAt: tomorrow })).status).toBe(
      200,
    );
    const heartbeat = { intervalSeconds: 86_400, graceSeconds: 3_600, notification: { recipient: 'family', message: 'The backup did not report' } };
    expect((await call('notifications', KEY, 'PUT', '/heartbeats/nightly-backup', heartbeat)).status).toBe(200);
    const watch = { condition: { kind: 'doorOpen', device: GARAGE, minutes: 30 }, notify: { recipient: 'family', priority: 1 } };
    expect((await call('device-control', KEY, 'PUT', '/watches/garage-open', watch)).status).toBe(200);
    const hook = await call('notifications', tokens.phone.secret, 'POST', '/hooks/generic?recipient=family', { title: 'Backup', message: 'done' });
    expect(hook.status).toBeLessThan(300);
    expect((await call('notifications', tokens.scraper.secret, 'GET', '/metrics')).status).toBe(200);
    expect((await call('device-control', KEY, 'GET', '/metrics')).status).toBe(200);

    const expected = {
      deviceAdmin: [200, 401],
      lamp: [200, 401],
      phone: [401, 200],
      notificationsAdmin: [401, 200],
      scraper: [401, 200],
    };
    expect(await statuses(tokens)).toEqual(expected);

    // Act and assert: each restart in turn (each writes its tokens at stop, as it did over the other's).
    await restart('notifications');
    expect(await statuses(tokens)).toEqual(expected);
    await restart('device-control');
    expect(await statuses(tokens)).toEqual(expected);

    expect((await call('device-control', tokens.deviceAdmin.secret, 'DELETE', `/tokens/${tokens.lamp.id}`)).status).toBe(204);
    expect((await call('notifications', tokens.phone.secret, 'GET', '/auth/me')).status).toBe(200);
    await restart('notifications');
    await restart('device-control');
    expect(await statuses(tokens)).toEqual({ ...expected, lamp: [401, 401] });

    // The other files both services keep in ./data survived both restarts.
    const scheduled = (await (await call('notifications', KEY, 'GET', '/scheduled')).json()) as { scheduled: Array<{ key: string }> };
    expect(scheduled.scheduled.map((s) => s.key)).toEqual(['bins']);
    const heartbeats = (await (await call('notifications', KEY, 'GET', '/heartbeats')).json()) as { heartbeats: Array<{ name: string }> };
    expect(heartbeats.heartbeats.map((h) => h.name)).toEqual(['nightly-backup']);
    const watches = (await (await call('device-control', KEY, 'GET', '/watches')).json()) as { watches: Array<{ name: string }> };
    expect(watches.watches.map((w) => w.name)).toEqual(['garage-open']);
    const inbox = (await (await call('notifications', KEY, 'GET', '/notifications/family')).json()) as Array<{ title: string }>;
    expect(inbox.map((n) => n.title)).toContain('Backup');
    expect(
      readdirSync(join(cwd, 'data'))
        .filter((name) => name.endsWith('tokens.json'))
        .sort(),
    ).toEqual(['device-control-tokens.json', 'notifications-tokens.json']);

    output += Object.values(running)
      .map((service) => service!.output)
      .join('');
    for (const { secret } of Object.values(tokens)) expect(output).not.toContain(secret);
    expect(output).not.toContain(KEY);
  });
});
