import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
afterEach(async () => {
  await t?.close();
});

describe('PUT /devices/:uuid/channels/:channel', () => {
  it('switches the channel on and answers with action "on"', async () => {
    t = await buildTestApp();

    const res = await request(t.app).put('/devices/strip-1/channels/3').send({ on: true });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'success', device: 'Strip', action: 'on', channel: 3, on: true });
    expect(t.cloud.stateOf('strip-1', 3)).toBe(true);
    expect(t.cloud.callsOf('readChannels')).toEqual([]);
  });

  it('is idempotent: switching on twice leaves the channel on', async () => {
    t = await buildTestApp();

    await request(t.app).put('/devices/plug-1/channels/0').send({ on: true });
    const second = await request(t.app).put('/devices/plug-1/channels/0').send({ on: true });

    expect(second.body).toMatchObject({ action: 'on', on: true });
    expect(t.cloud.stateOf('plug-1', 0)).toBe(true);
    expect(t.cloud.callsOf('setChannel')).toEqual([
      ['plug-1', 0, true],
      ['plug-1', 0, true],
    ]);
  });

  it('switches off with action "off" and records the state', async () => {
    t = await buildTestApp();
    await request(t.app).put('/devices/plug-1/channels/0').send({ on: true });

    const res = await request(t.app).put('/devices/plug-1/channels/0').send({ on: false });

    expect(res.body).toMatchObject({ action: 'off', on: false });
    expect((await request(t.app).get('/devices/plug-1')).body.channels[0].on).toBe(false);
  });

  it('returns 400 naming the field when "on" is not a boolean', async () => {
    t = await buildTestApp();

    const res = await request(t.app).put('/devices/plug-1/channels/0').send({ on: 'yes' });

    expect(res.status).toBe(400);
    expect(res.body.details[0].path).toBe('body.on');
  });

  it.each(['abc', '-1', '1.5'])('returns 400 naming the field when the channel in the path is %s', async (channel) => {
    t = await buildTestApp();

    const res = await request(t.app).put(`/devices/plug-1/channels/${channel}`).send({ on: true });

    expect(res.status).toBe(400);
    expect(res.body.details[0].path).toBe('params.channel');
  });

  it('returns 400 when the channel does not exist on the device', async () => {
    t = await buildTestApp();

    const res = await request(t.app).put('/devices/plug-1/channels/1').send({ on: true });

    expect(res.status).toBe(400);
    expect(res.body.details[0].path).toBe('channel');
  });

  it('returns 404 for an unknown device and 409 for an offline one', async () => {
    t = await buildTestApp();

    const unknown = await request(t.app).put('/devices/ghost/channels/0').send({ on: true });
    const offline = await request(t.app).put('/devices/offline-1/channels/0').send({ on: true });

    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toContain('ghost');
    expect(offline.status).toBe(409);
    expect(offline.body).toMatchObject({ error: 'Device not controllable', solution: 'Check synchronization' });
  });
});
