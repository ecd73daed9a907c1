import { createLogger, EventStreamHub } from '@homeops/common';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { DeviceService } from '../../src/domain/device.service.js';
import { MAX_WATCHES } from '../../src/domain/watches/device-watches.js';
import { cloudDevice, FakeDeviceCloud } from '../fakes/fake-device-cloud.js';
import { buildTestApp, type TestApp } from '../support/test-app.js';
import { DOMAIN_FAMILIES } from '../../src/families/index.js';

// /watches over HTTP: what a client sees of a watch, and each refusal in the common error body.
let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const offline = { condition: { kind: 'offline', device: 'plug-1', minutes: 5 }, notify: { recipient: 'family' } };

describe('/watches', () => {
  it('creates, lists with state and cost, replaces and removes a watch', async () => {
    t = await buildTestApp({ cloud: new FakeDeviceCloud([cloudDevice({ uuid: 'plug-1', name: 'Plug', capabilities: ['switch', 'energy'] })]) });
    const put = await request(t.app).put('/watches/plug-offline').send(offline);
    const power = await request(t.app)
      .put('/watches/plug-done')
      .send({ condition: { kind: 'powerBelow', device: 'plug-1', watts: 3, minutes: 2 }, notify: { recipient: 'family', priority: 1 } });
    const list = await request(t.app).get('/watches');

    expect(put.status).toBe(200);
    expect(put.body).toEqual({
      name: 'plug-offline',
      ...offline,
      notify: { recipient: 'family', priority: 0 },
      clearSeconds: 60,
      state: 'quiet',
      messagesPerHour: 0,
    });
    expect(power.body).toMatchObject({ messagesPerHour: 30, condition: { pollSeconds: 120 } });
    expect(list.body.watches.map((w: { name: string }) => w.name)).toEqual(['plug-offline', 'plug-done']);
    await request(t.app).delete('/watches/plug-offline').expect(204);
    expect((await request(t.app).delete('/watches/plug-offline')).body).toMatchObject({ code: 'WATCH_NOT_FOUND' });
  });

  it('refuses an unknown device, a device without what the watch follows, a bad body or name, and a watch over budget', async () => {
    t = await buildTestApp({ service: { maxMessagesPerHour: 100 } });
    const unknown = await request(t.app)
      .put('/watches/x')
      .send({ ...offline, condition: { ...offline.condition, device: 'nope' } });
    const noDoor = await request(t.app)
      .put('/watches/x')
      .send({ ...offline, condition: { kind: 'doorOpen', device: 'plug-1', minutes: 5 } });
    const badBody = await request(t.app)
      .put('/watches/x')
      .send({ ...offline, condition: { kind: 'temperature', device: 'plug-1', sensor: 's', minutes: 5 } });
    const badName = await request(t.app).put('/watches/Not_A_Name').send(offline);
    t.cloud.addDevice(cloudDevice({ uuid: 'meter-1', capabilities: ['energy'] }));
    await t.devices.sync();
    const costly = await request(t.app)
      .put('/watches/x')
      .send({ condition: { kind: 'powerBelow', device: 'meter-1', watts: 3, minutes: 2, pollSeconds: 60 }, notify: { recipient: 'family' } });

    expect([unknown.status, noDoor.status, badBody.status, badName.status, costly.status]).toEqual([404, 400, 400, 400, 409]);
    expect(unknown.body.code).toBe('DEVICE_NOT_FOUND');
    expect(noDoor.body.details).toEqual([{ path: 'body.condition.device', message: 'has no garageDoor' }]);
    expect(costly.body).toMatchObject({ code: 'WATCH_OVER_BUDGET', solution: expect.stringContaining('pollSeconds') });
    expect((await request(t.app).get('/watches')).body).toEqual({ watches: [] });
  });

  it('is refused with WATCHES_OFF when there is nowhere to send (no NOTIFY_URL)', async () => {
    const cloud = FakeDeviceCloud.withDefaults();
    const logger = createLogger({ service: 'test', level: 'silent' });
    const devices = new DeviceService(
      cloud,
      {
        families: DOMAIN_FAMILIES,
        maxMessagesPerMinute: 100,
        requestTimeoutMs: 200,
        commandTimeoutMs: 100,
        syncIntervalSeconds: 0,
        backgroundStateReads: false,
      },
      logger,
    );
    await devices.start();
    const app = createApp({ logger, cloud, devices, streams: new EventStreamHub() }, { API_KEY: undefined });
    const res = await request(app).put('/watches/x').send(offline);
    await devices.stop();
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'WATCHES_OFF', solution: expect.stringContaining('NOTIFY_URL') });
  });
});

describe('how many watches are kept', () => {
  it('refuses a new one past MAX_WATCHES with LIMIT_REACHED, and still takes a change of one kept', async () => {
    t = await buildTestApp();
    for (let i = 0; i < MAX_WATCHES; i++) await request(t.app).put(`/watches/w${i}`).send(offline).expect(200);
    const refused = await request(t.app).put('/watches/one-more').send(offline);
    const changed = await request(t.app)
      .put('/watches/w1')
      .send({ ...offline, clearSeconds: 5 });
    expect([refused.status, changed.status]).toEqual([409, 200]);
    expect(refused.body).toMatchObject({ code: 'LIMIT_REACHED' });
  });
});
