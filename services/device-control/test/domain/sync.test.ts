import { ManualClock } from '@homeops/common';
import { eventually } from '@homeops/test-kit';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import type { DeviceEvent } from '../../src/domain/device-events.js';
import { cloudDevice, FakeDeviceCloud } from '../fakes/fake-device-cloud.js';
import { buildTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
afterEach(async () => {
  await t?.close();
});

const uuids = async (app: TestApp['app']) => (await request(app).get('/devices')).body.map((d: { uuid: string; name: string }) => `${d.uuid}:${d.name}`);

describe('POST /devices/sync', () => {
  it('reports an unchanged account as nothing added, removed or updated', async () => {
    t = await buildTestApp();

    const res = await request(t.app).post('/devices/sync');

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ total: 5, added: 0, removed: 0, updated: 0 });
  });

  it('adds new devices, removes deleted ones and renames renamed ones, without duplicates', async () => {
    t = await buildTestApp();
    t.cloud.addDevice(cloudDevice({ uuid: 'new-1', name: 'Heater' }));
    t.cloud.removeDevice('sensor-1');
    t.cloud.renameDevice('plug-1', 'Reading Lamp');

    const res = await request(t.app).post('/devices/sync');

    expect(res.body).toEqual({ total: 5, added: 1, removed: 1, updated: 1 });
    expect(await uuids(t.app)).toEqual(['plug-1:Reading Lamp', 'strip-1:Strip', 'offline-1:Garage', 'unready-1:Kitchen', 'new-1:Heater']);
    expect((await request(t.app).get('/devices/sensor-1')).status).toBe(404);
  });

  it('keeps known channel states of devices that stay online', async () => {
    t = await buildTestApp();
    await request(t.app).put('/devices/strip-1/channels/2').send({ on: true });
    t.cloud.renameDevice('strip-1', 'Media Strip');

    await request(t.app).post('/devices/sync');

    const strip = (await request(t.app).get('/devices/strip-1')).body;
    expect(strip.name).toBe('Media Strip');
    expect(strip.channels[2].on).toBe(true);
  });

  it('keeps one entry per uuid when the cloud lists a device twice', async () => {
    const cloud = new FakeDeviceCloud([cloudDevice({ uuid: 'a' })]);
    const list = cloud.listDevices.bind(cloud);
    cloud.listDevices = async () => [...(await list()), cloudDevice({ uuid: 'a', name: 'again' })];
    t = await buildTestApp({ cloud });

    const res = await request(t.app).post('/devices/sync');

    expect(res.body.total).toBe(1);
    expect(await uuids(t.app)).toEqual(['a:again']);
  });

  it('keeps every known device when the device list fails, and answers with the failure', async () => {
    t = await buildTestApp();
    t.cloud.failNext('listDevices', 'unavailable');

    const res = await request(t.app).post('/devices/sync');

    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('42');
    expect(await uuids(t.app)).toHaveLength(5);
  });

  it('answers 504 when the device list does not come in time, and 502 for a cloud error', async () => {
    t = await buildTestApp();
    t.cloud.failNext('listDevices', 'timeout').failNext('listDevices', 'cloud-error');

    const timeout = await request(t.app).post('/devices/sync');
    const error = await request(t.app).post('/devices/sync');

    expect([timeout.status, error.status]).toEqual([504, 502]);
    expect(await uuids(t.app)).toHaveLength(5);
  });

  it('asks the cloud once for concurrent sync requests', async () => {
    t = await buildTestApp();
    const before = t.cloud.callsOf('listDevices').length;

    const [first, second] = await Promise.all([t.devices.sync(), t.devices.sync()]);

    expect(second).toBe(first);
    expect(t.cloud.callsOf('listDevices').length - before).toBe(1);
  });
});

describe('synchronization outside requests', () => {
  it('runs at startup', async () => {
    t = await buildTestApp();

    expect(t.cloud.callsOf('listDevices')).toHaveLength(1);
    expect(t.devices.listDevices()).toHaveLength(5);
  });

  it('runs periodically', async () => {
    const clock = new ManualClock();
    t = await buildTestApp({ clock, service: { syncIntervalSeconds: 0.05 } });
    t.cloud.addDevice(cloudDevice({ uuid: 'late-1' }));

    clock.advance(50);

    await eventually(() => t.devices.listDevices().some((d) => d.uuid === 'late-1'), 'the periodic sync to list late-1');
    expect(t.cloud.callsOf('listDevices')).toHaveLength(2);
  });

  it('starts while the cloud is down, then syncs as soon as the session comes up', async () => {
    const cloud = FakeDeviceCloud.withDefaults();
    cloud.setSession('connecting');
    cloud.failNext('listDevices', 'unavailable');
    t = await buildTestApp({ cloud });
    const early = await request(t.app).post('/devices/plug-1/toggle').send({});
    expect(early.status).toBe(503);
    expect(early.headers['retry-after']).toBe('5');

    cloud.setSession('connected');

    await eventually(() => t.devices.health().devices.total === 5, 'the sync after the session came up');
    expect((await request(t.app).post('/devices/plug-1/toggle').send({})).status).toBe(200);
  });

  it('reads unknown states in the background after a sync when enabled', async () => {
    t = await buildTestApp({ service: { backgroundStateReads: true } });

    await eventually(() => t.devices.getDevice('plug-1').channels[0]?.on === false, 'the background read of plug-1');
    // Only controllable devices are read.
    expect(
      t.cloud
        .callsOf('readChannels')
        .map((args) => args[0])
        .sort(),
    ).toEqual(['plug-1', 'strip-1']);
  });

  it('announces the sync result, added and removed devices as events', async () => {
    t = await buildTestApp();
    const events: DeviceEvent[] = [];
    t.devices.onEvent((e) => events.push(e));
    t.cloud.removeDevice('plug-1');

    await t.devices.sync();

    expect(events).toContainEqual({ type: 'device-removed', uuid: 'plug-1', name: 'Desk Lamp' });
    expect(events).toContainEqual(expect.objectContaining({ type: 'sync', ok: true, result: { total: 4, added: 0, removed: 1, updated: 0 } }));
  });
});

describe('POST /devices/sync: who may ask, and how often', () => {
  const KEY = 'sync-test-key-0123456789-abcdefghijklmnop';
  const withKey = { 'X-API-Key': KEY };

  async function tokenWith(app: TestApp['app'], scopes: unknown[]): Promise<string> {
    const res = await request(app).post('/tokens').set(withKey).send({ label: 'test', scopes });
    expect(res.status).toBe(201);
    return (res.body as { secret: string }).secret;
  }

  it('answers 403 to a control token, even one limited to a single plug, and runs no sync', async () => {
    t = await buildTestApp({ apiKey: KEY });
    const onePlug = await tokenWith(t.app, [{ scope: 'devices:control', devices: ['strip-1'] }, 'devices:read']);
    const control = await tokenWith(t.app, ['devices:control']);
    const admin = await tokenWith(t.app, ['admin']);
    const before = t.cloud.callsOf('listDevices').length;

    const refused = await Promise.all([onePlug, control].map((secret) => request(t.app).post('/devices/sync').set('Authorization', `Bearer ${secret}`)));
    const listed = t.cloud.callsOf('listDevices').length - before;
    const byAdmin = await request(t.app).post('/devices/sync').set('Authorization', `Bearer ${admin}`);

    expect(refused.map((res) => [res.status, res.body.code])).toEqual([
      [403, 'SCOPE_MISSING'],
      [403, 'SCOPE_MISSING'],
    ]);
    expect(listed).toBe(0);
    expect(byAdmin.status).toBe(200);
  });

  it('runs one sync for two concurrent requests and answers both with its result', async () => {
    t = await buildTestApp({ clock: new ManualClock(Date.parse('2026-11-28T08:00:00Z')) });
    const list = t.cloud.listDevices.bind(t.cloud);
    const requestSync = t.devices.requestSync.bind(t.devices);
    let asked = 0;
    t.devices.requestSync = () => {
      asked++;
      return requestSync();
    };
    let calls = 0;
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    t.cloud.listDevices = async () => {
      calls++;
      await gate;
      return list();
    };

    const first = request(t.app)
      .post('/devices/sync')
      .then((res) => res);
    await eventually(() => calls === 1, 'the first sync to reach the cloud');
    const second = request(t.app)
      .post('/devices/sync')
      .then((res) => res);
    await eventually(() => asked === 2, 'the second request to arrive');
    release();
    const answers = await Promise.all([first, second]);

    expect(answers.map((res) => res.status)).toEqual([200, 200]);
    expect(answers[1]!.body).toEqual(answers[0]!.body);
    expect(calls).toBe(1);
  });

  it('answers 429 with Retry-After to a sync asked within 30 s of the last one, and runs it once the gap passed', async () => {
    const clock = new ManualClock(Date.parse('2026-11-28T08:00:00Z'));
    t = await buildTestApp({ clock });
    const before = t.cloud.callsOf('listDevices').length;

    const first = await request(t.app).post('/devices/sync');
    clock.advance(20_000);
    const tooSoon = await request(t.app).post('/devices/sync');
    clock.advance(10_000);
    const later = await request(t.app).post('/devices/sync');

    expect(first.status).toBe(200);
    expect(tooSoon.status).toBe(429);
    expect(tooSoon.headers['retry-after']).toBe('10');
    expect(tooSoon.body).toMatchObject({ code: 'SYNC_TOO_SOON', error: expect.stringContaining('10 s'), solution: expect.any(String) });
    expect(later.status).toBe(200);
    expect(t.cloud.callsOf('listDevices').length - before).toBe(2);
  });

  it('leaves no gap after a failed sync, so the caller can retry at once', async () => {
    const clock = new ManualClock(Date.parse('2026-11-28T08:00:00Z'));
    t = await buildTestApp({ clock });
    t.cloud.failNext('listDevices', 'cloud-error');

    const failed = await request(t.app).post('/devices/sync');
    const retried = await request(t.app).post('/devices/sync');

    expect([failed.status, retried.status]).toEqual([502, 200]);
  });
});
