import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from './support/manual-clock.js';
import { buildTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
afterEach(async () => {
  await t?.close();
});

describe('account command budget', () => {
  it('answers 429 with Retry-After past the budget and sends nothing to the cloud', async () => {
    const clock = new ManualClock();
    t = await buildTestApp({ clock, service: { maxCommandsPerMinute: 3 } });
    for (const on of [true, false, true]) {
      expect((await request(t.app).put('/devices/plug-1/channels/0').send({ on })).status).toBe(200);
      clock.advance(10_000);
    }

    const res = await request(t.app).put('/devices/strip-1/channels/0').send({ on: true });

    expect(res.status).toBe(429);
    expect(res.body.error).toContain('3 commands per 60 s');
    expect(res.headers['retry-after']).toBe('30');
    expect(t.cloud.callsOf('setChannel')).toHaveLength(3);
  });

  it('frees commands as the sliding window moves on', async () => {
    const clock = new ManualClock();
    t = await buildTestApp({ clock, service: { maxCommandsPerMinute: 1 } });
    await request(t.app).put('/devices/plug-1/channels/0').send({ on: true });
    expect((await request(t.app).put('/devices/plug-1/channels/0').send({ on: false })).status).toBe(429);

    clock.advance(60_000);

    expect((await request(t.app).put('/devices/plug-1/channels/0').send({ on: false })).status).toBe(200);
  });

  it('counts the state read of a toggle as a command', async () => {
    t = await buildTestApp({ service: { maxCommandsPerMinute: 1 } });

    const res = await request(t.app).post('/devices/plug-1/toggle').send({});

    expect(res.status).toBe(429);
    expect(t.cloud.callsOf('readChannels')).toHaveLength(0);
    expect(t.cloud.callsOf('setChannel')).toHaveLength(0);
  });

  it('gives the command back when the session was down and nothing reached the cloud', async () => {
    t = await buildTestApp({ service: { maxCommandsPerMinute: 1 } });
    t.cloud.failNext('setChannel', 'unavailable');

    const refused = await request(t.app).put('/devices/plug-1/channels/0').send({ on: true });
    const retried = await request(t.app).put('/devices/plug-1/channels/0').send({ on: true });

    expect(refused.status).toBe(503);
    expect(retried.status).toBe(200);
  });

  it('gives the command back when the device went offline while the command waited in its queue', async () => {
    t = await buildTestApp({ service: { maxCommandsPerMinute: 2, commandTimeoutMs: 5000 } });
    t.cloud.holdCommands();
    const first = request(t.app).put('/devices/plug-1/channels/0').send({ on: true }).then((r) => r);
    await expect.poll(() => t.cloud.heldCount).toBe(1);
    const queued = request(t.app).put('/devices/plug-1/channels/0').send({ on: false }).then((r) => r);
    await expect.poll(() => t.devices.health().commands.usedLastMinute).toBe(2);

    t.cloud.setOnline('plug-1', false);
    t.cloud.releaseAll();

    expect((await first).status).toBe(200);
    expect((await queued).status).toBe(409);
    expect(t.devices.health().commands.usedLastMinute).toBe(1);
    expect(t.cloud.callsOf('setChannel')).toHaveLength(1);
  });

  it('shows the budget use in /health', async () => {
    t = await buildTestApp({ service: { maxCommandsPerMinute: 5 } });
    await request(t.app).put('/devices/plug-1/channels/0').send({ on: true });

    const res = await request(t.app).get('/health');

    expect(res.body.commands).toEqual({ limitPerMinute: 5, usedLastMinute: 1 });
  });
});
