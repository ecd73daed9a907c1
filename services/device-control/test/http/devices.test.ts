import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError, ManualClock } from '@homeops/common';
import { eventually } from '@homeops/test-kit';
import { FakeDeviceCloud } from '../fakes/fake-device-cloud.js';
import { buildTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
afterEach(async () => {
  await t?.close();
});

describe('GET /devices', () => {
  it('lists every device, offline and non-controllable ones included, with the spec fields', async () => {
    t = await buildTestApp();

    const res = await request(t.app).get('/devices');

    expect(res.status).toBe(200);
    expect(res.body.map((d: { uuid: string }) => d.uuid)).toEqual(['plug-1', 'strip-1', 'offline-1', 'unready-1', 'sensor-1']);
    const byUuid = Object.fromEntries(res.body.map((d: { uuid: string }) => [d.uuid, d]));
    expect(byUuid['plug-1']).toMatchObject({ name: 'Desk Lamp', type: 'mss310', online: true, controllable: true });
    expect(byUuid['offline-1']).toMatchObject({ online: false, controllable: false });
    expect(byUuid['unready-1']).toMatchObject({ online: true, commandReady: false, controllable: false });
    expect(byUuid['sensor-1']).toMatchObject({ switchable: false, controllable: false });
    expect(byUuid['strip-1'].channels).toEqual([
      { channel: 0, name: 'TV', on: null },
      { channel: 1, name: 'Speakers', on: null },
      { channel: 2, name: 'Lamp', on: null },
      { channel: 3, name: 'USB', on: null },
    ]);
  });

  it('shows a press on the physical button pushed by the cloud', async () => {
    t = await buildTestApp();

    t.cloud.pressButton('strip-1', 1);

    const res = await request(t.app).get('/devices/strip-1');
    expect(res.body.channels[1].on).toBe(true);
  });

  it('answers with fresh states after a change, not with an earlier list', async () => {
    t = await buildTestApp();
    const before = await request(t.app).get('/devices');

    t.cloud.pressButton('plug-1', 0);
    const after = await request(t.app).get('/devices');

    expect(before.body[0].channels[0].on).toBeNull();
    expect(after.body[0].channels[0].on).toBe(true);
    expect(after.headers['content-type']).toContain('application/json');
  });

  it('answers 304 to a poller whose copy is current, and the new list once something changed', async () => {
    t = await buildTestApp();
    const first = await request(t.app).get('/devices');

    const unchanged = await request(t.app).get('/devices').set('If-None-Match', String(first.headers.etag));
    t.cloud.pressButton('strip-1', 0);
    const changed = await request(t.app).get('/devices').set('If-None-Match', String(first.headers.etag));

    expect(first.headers.etag).toMatch(/^W\/"/);
    expect(unchanged.status).toBe(304);
    expect(changed.status).toBe(200);
    expect(changed.body[1].channels[0].on).toBe(true);
  });

  it('forgets channel states while a device is offline and shows it online again', async () => {
    t = await buildTestApp();
    await request(t.app).put('/devices/plug-1/channels/0').send({ on: true });

    t.cloud.setOnline('plug-1', false);
    const offline = await request(t.app).get('/devices/plug-1');
    t.cloud.setOnline('plug-1', true);
    const online = await request(t.app).get('/devices/plug-1');

    expect(offline.body).toMatchObject({ online: false, controllable: false, channels: [{ on: null }] });
    expect(online.body).toMatchObject({ online: true, controllable: true });
  });

  it('answers 503 with Retry-After, not an empty list, until the device list was loaded once', async () => {
    const cloud = FakeDeviceCloud.withDefaults();
    const clock = new ManualClock();
    cloud.setSession('backing-off', { retryAt: new Date(clock.now() + 30_000).toISOString() });
    cloud.failAlways('listDevices', new AppError('CLOUD_UNAVAILABLE', 'Not logged in yet'));
    t = await buildTestApp({ cloud, clock });

    const list = await request(t.app).get('/devices');
    const one = await request(t.app).get('/devices/plug-1');
    const toggle = await request(t.app).post('/devices/plug-1/toggle').send({});

    expect([list.status, one.status, toggle.status]).toEqual([503, 503, 503]);
    expect(list.body.error).toBe('The device list has not been loaded from the cloud yet');
    expect(list.headers['retry-after']).toBe('30');
    cloud.recover('listDevices');
    cloud.setSession('connected');
    await eventually(async () => (await request(t.app).get('/devices')).status === 200, { what: 'the list once loaded', timeoutMs: 2000 });
  });

  it('answers an empty list once an account without devices was loaded', async () => {
    t = await buildTestApp({ cloud: new FakeDeviceCloud([]) });

    const res = await request(t.app).get('/devices');

    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });
});

describe('GET /devices/:uuid', () => {
  it('returns one device in the list shape', async () => {
    t = await buildTestApp();

    const res = await request(t.app).get('/devices/plug-1');

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ uuid: 'plug-1', name: 'Desk Lamp', channels: [{ channel: 0, name: 'Desk Lamp', on: null }] });
    expect(res.body.lastSeenAt).toEqual(expect.any(String));
  });

  it('returns 404 naming the uuid and suggesting POST /devices/sync', async () => {
    t = await buildTestApp();

    const res = await request(t.app).get('/devices/missing-7');

    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      error: 'Device missing-7 not found',
      solution: 'Run POST /devices/sync, then GET /devices for the known uuids',
      code: 'DEVICE_NOT_FOUND',
    });
  });
});

describe('API key', () => {
  it('requires the key on device routes and leaves /health open', async () => {
    t = await buildTestApp({ apiKey: 'k'.repeat(24) });

    const anonymous = await request(t.app).get('/devices');
    const withKey = await request(t.app)
      .get('/devices')
      .set('Authorization', `Bearer ${'k'.repeat(24)}`);
    const health = await request(t.app).get('/health');

    expect(anonymous.status).toBe(401);
    expect(withKey.status).toBe(200);
    expect(health.status).toBe(200);
  });
});

describe('GET /openapi.json', () => {
  it('documents every device route with its schemas', async () => {
    t = await buildTestApp();

    const res = await request(t.app).get('/openapi.json');

    expect(Object.keys(res.body.paths)).toEqual(
      expect.arrayContaining([
        '/devices',
        '/devices/{uuid}',
        '/devices/{uuid}/toggle',
        '/devices/{uuid}/channels/{channel}',
        '/devices/sync',
        '/events',
        '/health',
      ]),
    );
    const toggle = res.body.paths['/devices/{uuid}/toggle'].post;
    expect(Object.keys(toggle.responses)).toEqual(expect.arrayContaining(['200', '400', '404', '409', '429', '502', '503', '504']));
    expect(res.body.components.schemas.Device.required).toEqual(expect.arrayContaining(['uuid', 'name', 'type', 'online', 'controllable', 'channels']));
  });
});
