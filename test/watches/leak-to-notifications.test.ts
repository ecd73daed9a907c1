import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestPki, eventually, ServiceProcess, within, type TestPki } from '../../packages/test-kit/src/index.js';
import { LEAK_SENSOR, SAFETY_HUB, safetyHub, SMOKE_ALARM } from '../../services/device-control/test/emulator/hub-sensors.js';
import { createAccount, MerossEmulator } from '../../services/device-control/test/emulator/meross-emulator.js';
import { EmulatedService } from '../../services/device-control/test/e2e/service-process.js';
import { startFakePushoverApi } from '../../services/notifications/test/pushover/fake-pushover-api.js';

// End to end, as a household runs it: water at the emulated MS400 behind an msh300hk reaches device-control through
// the real meross-cloud library (the hub's push), its leak watch sends through the notification service's webhook,
// and the emergency rings at a fake Pushover; the sensor drying cancels that very alarm. Nobody reads the hub first.
const KEY = randomBytes(24).toString('base64url');
const PUSHOVER_TOKEN = 'aPpToKeN0000000000000000000002';
const USER_KEY = 'uSeRkEy00000000000000000000002';
const FAMILY = 'fAmIlY0000000000000000000000f2';
const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };

let dir: string;
let pki: TestPki;
let emulator: MerossEmulator;
let fake: Awaited<ReturnType<typeof startFakePushoverApi>>;
let notifications: ServiceProcess;
let deviceControl: EmulatedService;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'leak-watch-'));
  pki = createTestPki();
  const account = createAccount();
  emulator = await MerossEmulator.start({ pki, account, devices: [safetyHub()] });
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
  deviceControl = await EmulatedService.start({
    apiUrl: emulator.apiUrl,
    account,
    caFile: pki.caFile,
    workDir: dir,
    env: { NOTIFY_URL: notifications.baseUrl, NOTIFY_TOKEN: secret, NOTIFY_TIMEOUT_MS: '2000' },
  });
  await eventually(
    async () => {
      const devices = (await deviceControl.request('GET', '/devices')).body as Array<{ uuid: string; status: string; commandReady: boolean }>;
      // Command-ready: its broker acknowledged the subscriptions, so the hub's pushes are heard.
      return devices.find((d) => d.uuid === SAFETY_HUB)?.commandReady === true;
    },
    { what: 'the hub listed and command-ready', timeoutMs: 20_000 },
  );
}, 90_000);

afterAll(async () => {
  await Promise.all([deviceControl?.stop(), notifications?.stop()]);
  await Promise.all([fake?.close(), emulator?.stop()]);
  pki?.remove();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a leak at the emulated sensor, across both services', () => {
  it('rings a priority-2 alarm at Pushover within 5 s, and drying cancels that alarm by its tag', { timeout: 60_000 }, async () => {
    const put = await deviceControl.request('PUT', '/watches/laundry-leak', {
      condition: { kind: 'leak', device: SAFETY_HUB, sensor: 'Laundry leak sensor' },
      notify: { recipient: 'family', priority: 2 },
      clearSeconds: 0,
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ name: 'laundry-leak', state: 'quiet', messagesPerHour: 0 });

    await within(5_000, 'the leak alarm at Pushover', async () => {
      emulator.setLeak(SAFETY_HUB, LEAK_SENSOR, true);
      await eventually(() => fake.count('messages') === 1, { what: 'the alarm at Pushover', timeoutMs: 5_000 });
    });
    const [alarm] = fake.calls.filter((c) => c.endpoint === 'messages');
    expect(alarm!.fields).toMatchObject({ priority: '2', title: 'Laundry leak sensor: water leak', user: FAMILY, tags: expect.stringMatching(/^alert-/) });
    expect(fake.count('cancel')).toBe(0);

    emulator.setLeak(SAFETY_HUB, LEAK_SENSOR, false);
    await eventually(() => fake.count('cancel') === 1, { what: 'the cancel at Pushover', timeoutMs: 10_000 });
    const [cancel] = fake.calls.filter((c) => c.endpoint === 'cancel');
    // The cancel names the alarm the leak rang (its receipt, which Pushover gave for the message with the alert's tag).
    expect(fake.alarm(cancel!.receipt!)).toMatchObject({ user: FAMILY, cancelled: true });
    expect(fake.count('messages')).toBe(1);
    const watches = (await deviceControl.request('GET', '/watches')).body as { watches: Array<{ state: string }> };
    expect(watches.watches.map((w) => w.state)).toEqual(['quiet']);
    expect(deviceControl.output + notifications.output).not.toContain(KEY);
  });

  it('does not ring for a muted smoke alarm or a test, and rings for smoke', { timeout: 60_000 }, async () => {
    const put = await deviceControl.request('PUT', '/watches/hall-smoke', {
      condition: { kind: 'smoke', device: SAFETY_HUB, sensor: SMOKE_ALARM },
      // No priority: a smoke watch rings as an emergency by default.
      notify: { recipient: 'family' },
      clearSeconds: 0,
    });
    expect(put.status).toBe(200);
    const before = fake.count('messages');

    emulator.setSmoke(SAFETY_HUB, SMOKE_ALARM, 23);
    emulator.setSmoke(SAFETY_HUB, SMOKE_ALARM, 27);
    emulator.setSmoke(SAFETY_HUB, SMOKE_ALARM, 170);
    const hub = async () => (await deviceControl.request('GET', `/devices/${SAFETY_HUB}/hub`)).body as { subdevices: Array<{ id: string; smoke: string }> };
    await eventually(async () => (await hub()).subdevices.find((d) => d.id === SMOKE_ALARM)?.smoke === 'clear', 'the all-clear in the GET');
    expect(fake.count('messages')).toBe(before);

    emulator.setSmoke(SAFETY_HUB, SMOKE_ALARM, 25);
    await eventually(() => fake.count('messages') === before + 1, { what: 'the smoke alarm at Pushover', timeoutMs: 5_000 });
    expect(fake.calls.filter((c) => c.endpoint === 'messages').at(-1)!.fields).toMatchObject({ priority: '2', title: `${SMOKE_ALARM}: smoke alarm` });
  });
});
