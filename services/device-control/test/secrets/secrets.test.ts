import { createLogger } from '@homeops/common';
import { eventually } from '@homeops/test-kit';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeDeviceCloud } from '../fakes/fake-device-cloud.js';
import { buildTestApp, type TestApp } from '../support/test-app.js';

const SECRET = 'tok_5f2b9c0e7a1d4e3f';

let t: TestApp;
afterEach(async () => {
  await t?.close();
});

/** A library error that carries a token, as meross-cloud's do when they echo a request. */
const leakyError = () => Object.assign(new Error(`request failed: Authorization: Basic ${SECRET}`), { token: SECRET });

describe('secrets', () => {
  it('keeps a token carried by a backend error out of every log line, response body and live event', async () => {
    const lines: string[] = [];
    const logger = createLogger({ service: 'test', level: 'trace', destination: { write: (line: string) => lines.push(line) } });
    const cloud = FakeDeviceCloud.withDefaults();
    cloud.failNext('readChannels', leakyError()).failNext('readChannels', leakyError());
    t = await buildTestApp({ cloud, logger, service: { backgroundStateReads: true } });
    const events: string[] = [];
    t.devices.onEvent((e) => events.push(JSON.stringify(e)));
    await eventually(() => lines.some((l) => l.includes('could not read device state')), 'the failed background read logged');

    cloud.failNext('listDevices', leakyError()).failNext('setChannel', leakyError()).failNext('readChannels', leakyError());
    const bodies = [
      await request(t.app).post('/devices/sync'),
      await request(t.app).put('/devices/plug-1/channels/0').send({ on: true }),
      await request(t.app).post('/devices/strip-1/toggle').send({ channel: 1 }),
      await request(t.app).get('/health'),
    ].map((res) => JSON.stringify(res.body));

    expect(bodies.slice(0, 3).map((b) => JSON.parse(b).error)).toEqual([
      'The cloud request for the device list failed',
      'The cloud request for switching device plug-1 failed',
      'The cloud request for reading device strip-1 failed',
    ]);
    expect(lines.length).toBeGreaterThan(5);
    for (const text of [...lines, ...bodies, ...events]) expect(text).not.toContain(SECRET);
  });
});
