import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, ServiceProcess } from '../../packages/test-kit/src/index.js';
import { startFakePushoverApi } from '../../services/notifications/test/pushover/fake-pushover-api.js';

// The two services linked as a household runs them: a device-control watch on the simulator's garage door sends
// through the notification service's webhook, with a token that may only send to the family; the alarm rings at a fake
// Pushover and is cancelled there when the door closes.
const KEY = randomBytes(24).toString('base64url');
const PUSHOVER_TOKEN = 'aPpToKeN0000000000000000000001';
const USER_KEY = 'uSeRkEy00000000000000000000001';
const FAMILY = 'fAmIlY0000000000000000000000f1';
const GARAGE = 'sim-garage-0001';
const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };

let dir: string;
let fake: Awaited<ReturnType<typeof startFakePushoverApi>>;
let notifications: ServiceProcess;
let deviceControl: ServiceProcess;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'watches-'));
  fake = await startFakePushoverApi({ token: PUSHOVER_TOKEN, users: { [USER_KEY]: [], [FAMILY]: ['phone'] } });
  notifications = await ServiceProcess.start({
    service: 'notifications',
    env: {
      API_KEY: KEY,
      STORAGE_PATH: join(dir, 'notifications', 'notifications.yaml'),
      PROVIDER_USER_KEY: USER_KEY,
      PROVIDER_API_TOKEN: PUSHOVER_TOKEN,
      PROVIDER_API_URL: fake.url,
      RECIPIENTS: `family=${FAMILY}`,
    },
  });
  const token = await fetch(`${notifications.baseUrl}/tokens`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ label: 'device-control watches', scopes: [{ scope: 'notifications:send', recipients: ['family'] }] }),
  });
  const { secret } = (await token.json()) as { secret: string };
  deviceControl = await ServiceProcess.start({
    service: 'device-control',
    env: {
      CLOUD_BACKEND: 'simulator',
      // The door's travel is not what is tested here: 200 ms instead of the simulator's 3 s, each way.
      SIMULATOR_TRAVEL_MS: '200',
      API_KEY: KEY,
      CLOUD_TOKEN_FILE: join(dir, 'dc', 'cloud-token.json'),
      NOTIFY_URL: notifications.baseUrl,
      NOTIFY_TOKEN: secret,
    },
  });
}, 90_000);

afterAll(async () => {
  await Promise.all([deviceControl?.stop(), notifications?.stop()]);
  await fake?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a garage door watch across both services', () => {
  it('rings once when the door stays open and cancels the alarm when it closes', { timeout: 60_000 }, async () => {
    const put = await fetch(`${deviceControl.baseUrl}/watches/garage-open`, {
      method: 'PUT',
      headers: auth,
      body: JSON.stringify({ condition: { kind: 'doorOpen', device: GARAGE, minutes: 0.01 }, notify: { recipient: 'family', priority: 2 }, clearSeconds: 0 }),
    });
    expect(put.status).toBe(200);
    expect(await put.json()).toMatchObject({ name: 'garage-open', messagesPerHour: 0, state: 'quiet' });

    await fetch(`${deviceControl.baseUrl}/devices/${GARAGE}/garage-door/0/open`, { method: 'POST', headers: auth });
    await eventually(() => fake.count('messages') === 1, { what: 'the alarm at Pushover', timeoutMs: 20_000 });
    const [alarm] = fake.calls.filter((c) => c.endpoint === 'messages');
    expect(alarm!.fields).toMatchObject({ priority: '2', title: 'Garage Door is open', user: FAMILY, tags: expect.stringMatching(/^alert-/) });

    await fetch(`${deviceControl.baseUrl}/devices/${GARAGE}/garage-door/0/close`, { method: 'POST', headers: auth });
    await eventually(() => fake.count('cancel') === 1, { what: 'the cancel at Pushover', timeoutMs: 20_000 });
    expect(fake.count('messages')).toBe(1);
    const watches = (await (await fetch(`${deviceControl.baseUrl}/watches`, { headers: auth })).json()) as { watches: Array<{ state: string }> };
    expect(watches.watches.map((w) => w.state)).toEqual(['quiet']);
    expect(deviceControl.output + notifications.output).not.toContain(KEY);
  });

  it("keeps ringing when a token that may only send posts the watch's resolve, even with the real episode id", { timeout: 60_000 }, async () => {
    const made = await fetch(`${notifications.baseUrl}/tokens`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ label: 'a stranger on the LAN', scopes: [{ scope: 'notifications:send', recipients: ['family'] }] }),
    });
    const stranger = ((await made.json()) as { secret: string }).secret;
    const [messagesBefore, cancelsBefore] = [fake.count('messages'), fake.count('cancel')];
    await fetch(`${deviceControl.baseUrl}/devices/${GARAGE}/garage-door/0/open`, { method: 'POST', headers: auth });
    await eventually(() => fake.count('messages') === messagesBefore + 1, { what: 'the second alarm at Pushover', timeoutMs: 20_000 });
    // The strongest stranger: it knows the episode id (here read from device-control's log, which only the operator sees).
    const firings = () => deviceControl.output.split('\n').filter((line) => line.includes('watch garage-open: firing sent'));
    await eventually(() => firings().length === 2, 'the second firing in the log');
    const episode = /"episode":"([0-9a-f-]{36})"/.exec(firings()[1]!)?.[1];
    expect(episode).toBeDefined();
    const resolve = await fetch(`${notifications.baseUrl}/hooks/generic?recipient=family`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stranger}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: `watch-garage-open-${episode}`, status: 'resolved', title: 'Garage Door is open', message: 'over' }),
    });

    expect(resolve.status).toBe(403);
    expect(await resolve.json()).toMatchObject({ code: 'ALERT_FIRED_BY_ANOTHER' });
    expect(fake.count('cancel')).toBe(cancelsBefore);

    await fetch(`${deviceControl.baseUrl}/devices/${GARAGE}/garage-door/0/close`, { method: 'POST', headers: auth });
    await eventually(() => fake.count('cancel') === cancelsBefore + 1, { what: 'the cancel when the door closes', timeoutMs: 20_000 });
  });
});
