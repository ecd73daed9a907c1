import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError, ManualClock } from '@homeops/common';
import { eventually } from '@homeops/test-kit';
import { buildTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
afterEach(async () => {
  await t?.close();
});

describe('POST /devices/:uuid/toggle', () => {
  it('reads the unknown state from the device, then flips it', async () => {
    t = await buildTestApp();
    t.cloud.setState('strip-1', 2, true);

    const res = await request(t.app).post('/devices/strip-1/toggle').send({ channel: 2 });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'success', device: 'Strip', action: 'toggle', channel: 2, on: false });
    expect(t.cloud.callsOf('readChannels')).toEqual([['strip-1']]);
    expect(t.cloud.callsOf('setChannel')).toEqual([['strip-1', 2, false]]);
    expect(t.cloud.stateOf('strip-1', 2)).toBe(false);
  });

  it('flips the channel twice when toggled twice, reading the device only once', async () => {
    t = await buildTestApp();

    const first = await request(t.app).post('/devices/plug-1/toggle').send({ channel: 0 });
    const second = await request(t.app).post('/devices/plug-1/toggle').send({ channel: 0 });

    expect(first.body.on).toBe(true);
    expect(second.body.on).toBe(false);
    expect(t.cloud.callsOf('setChannel')).toEqual([
      ['plug-1', 0, true],
      ['plug-1', 0, false],
    ]);
    expect(t.cloud.callsOf('readChannels')).toHaveLength(1);
    const device = await request(t.app).get('/devices/plug-1');
    expect(device.body.channels[0].on).toBe(false);
  });

  it('toggles channel 0 when the body has no channel', async () => {
    t = await buildTestApp();

    const withEmptyBody = await request(t.app).post('/devices/strip-1/toggle').send({});
    const withoutBody = await request(t.app).post('/devices/strip-1/toggle');

    expect(withEmptyBody.body).toMatchObject({ channel: 0, on: true });
    expect(withoutBody.body).toMatchObject({ channel: 0, on: false });
  });

  it('serializes concurrent toggles of one device so that both flip', async () => {
    t = await buildTestApp({ service: { commandTimeoutMs: 5000 } });
    t.cloud.holdCommands();

    const first = request(t.app)
      .post('/devices/plug-1/toggle')
      .send({ channel: 0 })
      .then((r) => r);
    const second = request(t.app)
      .post('/devices/plug-1/toggle')
      .send({ channel: 0 })
      .then((r) => r);
    await eventually(() => t.cloud.heldCount === 1, 'the first command held');
    // The second command waits in the device queue until the first is acknowledged.
    expect(t.cloud.callsOf('setChannel')).toHaveLength(1);
    t.cloud.releaseAll();
    const results = await Promise.all([first, second]);

    expect(results.map((r) => r.body.on).sort()).toEqual([false, true]);
    expect(t.cloud.callsOf('setChannel').map((args) => args[2])).toEqual([true, false]);
    expect(t.cloud.stateOf('plug-1', 0)).toBe(false);
  });

  it('does not hold commands to one device behind another device', async () => {
    t = await buildTestApp({ service: { commandTimeoutMs: 5000 } });
    await request(t.app).put('/devices/strip-1/channels/0').send({ on: true });
    t.cloud.holdCommands();

    const held = request(t.app)
      .post('/devices/plug-1/toggle')
      .send({})
      .then((r) => r);
    await eventually(() => t.cloud.heldCount === 1, 'the plug command held');
    const other = request(t.app)
      .post('/devices/strip-1/toggle')
      .send({ channel: 0 })
      .then((r) => r);
    await eventually(() => t.cloud.heldCount === 2, 'the strip command held too');
    t.cloud.releaseAll();

    expect((await other).body).toMatchObject({ device: 'Strip', on: false });
    expect((await held).status).toBe(200);
  });

  it('returns 409 with the spec texts when the device is offline', async () => {
    t = await buildTestApp();

    const res = await request(t.app).post('/devices/offline-1/toggle').send({ channel: 0 });

    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: 'Device not controllable', solution: 'Check synchronization' });
    expect(res.body.details).toEqual([{ path: 'device', message: 'the device is offline' }]);
    expect(t.cloud.callsOf('setChannel')).toEqual([]);
  });

  it('returns 409 when the command channel is not connected or the device cannot switch', async () => {
    t = await buildTestApp();

    const unready = await request(t.app).post('/devices/unready-1/toggle').send({});
    const sensor = await request(t.app).post('/devices/sensor-1/toggle').send({});

    expect([unready.status, sensor.status]).toEqual([409, 409]);
    expect(unready.body.error).toBe('Device not controllable');
    expect(sensor.body.solution).toBe('Check synchronization');
  });

  it('returns 409 when the device went offline by a cloud push', async () => {
    t = await buildTestApp();
    t.cloud.setOnline('plug-1', false);

    const res = await request(t.app).post('/devices/plug-1/toggle').send({});

    expect(res.status).toBe(409);
  });

  it('returns 404 naming the uuid and suggesting POST /devices/sync for an unknown device', async () => {
    t = await buildTestApp();

    const res = await request(t.app).post('/devices/nope-42/toggle').send({ channel: 0 });

    expect(res.status).toBe(404);
    expect(res.body.error).toContain('nope-42');
    expect(res.body.solution).toContain('POST /devices/sync');
  });

  it.each([
    ['a string', { channel: '1' }],
    ['a fraction', { channel: 1.5 }],
    ['negative', { channel: -1 }],
  ])('returns 400 naming the field when the channel is %s', async (_case, body) => {
    t = await buildTestApp();

    const res = await request(t.app).post('/devices/strip-1/toggle').send(body);

    expect(res.status).toBe(400);
    expect(res.body.details[0].path).toBe('body.channel');
    expect(t.cloud.callsOf('setChannel')).toEqual([]);
  });

  it('returns 400 naming the field when the channel is not a channel of the device', async () => {
    t = await buildTestApp();

    const res = await request(t.app).post('/devices/strip-1/toggle').send({ channel: 4 });

    expect(res.status).toBe(400);
    expect(res.body.error).toContain('channel');
    expect(res.body.details).toEqual([{ path: 'channel', message: "must be one of the device's channels: 0, 1, 2, 3" }]);
  });

  it('returns 400 when the body is not valid JSON', async () => {
    t = await buildTestApp();

    const res = await request(t.app).post('/devices/plug-1/toggle').set('Content-Type', 'application/json').send('{"channel":');

    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Malformed JSON body');
  });

  it('returns 415 instead of toggling channel 0 when the body is form-encoded (curl -d without a JSON header)', async () => {
    t = await buildTestApp();

    const res = await request(t.app).post('/devices/strip-1/toggle').type('form').send('{"channel":2}');

    expect(res.status).toBe(415);
    expect(res.body.solution).toContain('Content-Type: application/json');
    expect(t.cloud.callsOf('setChannel')).toEqual([]);
  });

  it('returns 504 when the cloud does not answer in time, and reads the state again next time', async () => {
    t = await buildTestApp();
    await request(t.app).put('/devices/plug-1/channels/0').send({ on: true });
    t.cloud.failNext('setChannel', 'timeout');

    const res = await request(t.app).post('/devices/plug-1/toggle').send({});

    expect(res.status).toBe(504);
    expect(res.body.error).toContain('did not answer');
    expect((await request(t.app).get('/devices/plug-1')).body.channels[0].on).toBeNull();
    const retry = await request(t.app).post('/devices/plug-1/toggle').send({});
    expect(retry.status).toBe(200);
    expect(t.cloud.callsOf('readChannels')).toHaveLength(1);
  });

  it('returns 504 when reading the unknown state times out', async () => {
    t = await buildTestApp();
    t.cloud.failNext('readChannels', 'timeout');

    const res = await request(t.app).post('/devices/plug-1/toggle').send({});

    expect(res.status).toBe(504);
    expect(t.cloud.callsOf('setChannel')).toEqual([]);
  });

  it("returns 502 with the cloud's code and text when the cloud answers with an error", async () => {
    t = await buildTestApp();
    t.cloud.failNext('setChannel', 'cloud-error');

    const res = await request(t.app).post('/devices/plug-1/toggle').send({});

    expect(res.status).toBe(502);
    expect(res.body.error).toBe('The cloud answered with error 5000: device busy');
  });

  it('returns 502 without the internal text when the backend fails with an unexpected error', async () => {
    t = await buildTestApp();
    t.cloud.failNext('setChannel', new Error('socket hang up token=abc123'));

    const res = await request(t.app).post('/devices/plug-1/toggle').send({});

    expect(res.status).toBe(502);
    expect(JSON.stringify(res.body)).not.toContain('abc123');
  });

  it('returns 503 with Retry-After while the cloud session is backing off', async () => {
    t = await buildTestApp();
    t.cloud.failNext('readChannels', 'unavailable');

    const res = await request(t.app).post('/devices/plug-1/toggle').send({});

    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('42');
    expect(t.cloud.callsOf('setChannel')).toEqual([]);
  });

  it('derives Retry-After from the session retry time when the backend gives none', async () => {
    const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
    t = await buildTestApp({ clock });
    t.cloud.setSession('backing-off', { retryAt: '2026-01-01T00:02:00.000Z' });
    t.cloud.failNext('readChannels', new AppError('CLOUD_UNAVAILABLE', 'Logging in again'));

    const res = await request(t.app).post('/devices/plug-1/toggle').send({});

    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('120');
  });
});
