import request from 'supertest';
import { describe, expect, it } from 'vitest';
import type { DeviceEvent } from '../../src/domain/device-events.js';
import { cloudDevice, FakeDeviceCloud, smartBulb } from '../fakes/fake-device-cloud.js';
import { buildTestApp } from '../support/test-app.js';

const BULB = 'bulb-1';
const WHITE = 'bulb-white';

async function setup() {
  const cloud = new FakeDeviceCloud([cloudDevice({ uuid: 'plug-1', name: 'Desk Lamp' }), smartBulb({ uuid: BULB, name: 'Bulb' })]);
  cloud.lightFeatures = { brightness: true, temperature: false, rgb: false };
  cloud.addDevice(smartBulb({ uuid: WHITE, name: 'Hall' }));
  const built = await buildTestApp({ cloud });
  const seen: DeviceEvent[] = [];
  built.devices.onEvent((e) => seen.push(e));
  return { ...built, cloud, lights: () => seen.filter((e) => e.type === 'light') };
}

describe('lights', () => {
  it('reads the settings and features once, answers from them after, and shows colour as #rrggbb', async () => {
    const { app, cloud } = await setup();

    const first = await request(app).get(`/devices/${BULB}/light`);
    await request(app).get(`/devices/${BULB}/light`);

    expect(first.body).toMatchObject({
      uuid: BULB,
      lights: [{ channel: 0, brightness: 100, temperature: 50, rgb: '#ffffff', supports: { brightness: true, temperature: true, rgb: true } }],
    });
    expect(cloud.callsOf('readLight')).toEqual([[BULB]]);
  });

  it('sets brightness, colour temperature and colour, through the budget and queue, and announces it', async () => {
    const { app, cloud, lights } = await setup();

    const res = await request(app).put(`/devices/${BULB}/light/0`).send({ brightness: 30, temperature: 80, rgb: '#FF8000' });

    expect(res.body).toEqual({ status: 'success', device: 'Bulb', channel: 0, applied: { brightness: 30, temperature: 80, rgb: '#ff8000' } });
    expect(cloud.callsOf('setLight')).toEqual([[BULB, 0, { brightness: 30, temperature: 80, rgb: 0xff8000 }]]);
    expect(lights().at(-1)).toMatchObject({ brightness: 30, temperature: 80, rgb: 0xff8000, source: 'command' });
  });

  it('tells which mode the light shows: the colour after a colour is set, the temperature after a temperature', async () => {
    const { app } = await setup();

    await request(app).put(`/devices/${BULB}/light/0`).send({ rgb: '#ff0000' });
    const afterColour = await request(app).get(`/devices/${BULB}/light`);
    await request(app).put(`/devices/${BULB}/light/0`).send({ temperature: 20 });
    const afterTemperature = await request(app).get(`/devices/${BULB}/light`);

    expect(afterColour.body.lights[0]).toMatchObject({ mode: 'rgb', rgb: '#ff0000' });
    expect(afterTemperature.body.lights[0]).toMatchObject({ mode: 'temperature', temperature: 20 });
  });

  it('answers 400 naming the field and range, and sends nothing', async () => {
    const { app, cloud } = await setup();

    const low = await request(app).put(`/devices/${BULB}/light/0`).send({ brightness: 0 });
    const high = await request(app).put(`/devices/${BULB}/light/0`).send({ temperature: 101 });
    const colour = await request(app).put(`/devices/${BULB}/light/0`).send({ rgb: 'red' });
    const nothing = await request(app).put(`/devices/${BULB}/light/0`).send({});

    expect(low.body.details).toEqual([{ path: 'body.brightness', message: 'must be between 1 and 100' }]);
    expect(high.body.details).toEqual([{ path: 'body.temperature', message: 'must be between 1 and 100' }]);
    expect(colour.body.details).toEqual([{ path: 'body.rgb', message: 'must be a colour as #rrggbb' }]);
    expect([low.status, high.status, colour.status, nothing.status]).toEqual([400, 400, 400, 400]);
    expect(cloud.callsOf('setLight')).toEqual([]);
  });

  it('refuses with 409 what the light does not have, after learning its features, and sends no change', async () => {
    const { app, cloud } = await setup();

    const res = await request(app).put(`/devices/${WHITE}/light/0`).send({ brightness: 50, rgb: '#ff0000' });
    const fine = await request(app).put(`/devices/${WHITE}/light/0`).send({ brightness: 50 });

    expect(res.status).toBe(409);
    expect(res.body.details).toEqual([{ path: 'rgb', message: 'this light has no colour (RGB)' }]);
    expect(res.body.solution).toBe('Send only what it has: brightness');
    expect(fine.status).toBe(200);
    expect(cloud.callsOf('setLight')).toEqual([[WHITE, 0, { brightness: 50 }]]);
    expect(cloud.callsOf('readLight')).toEqual([[WHITE]]);
  });

  it('switches the light on and off through its channel, and refuses light settings on a plug', async () => {
    const { app, cloud } = await setup();

    const off = await request(app).put(`/devices/${BULB}/channels/0`).send({ on: false });
    const plug = await request(app).put('/devices/plug-1/light/0').send({ brightness: 50 });

    expect(off.body).toMatchObject({ action: 'off', on: false });
    expect(plug.status).toBe(409);
    expect(cloud.callsOf('setChannel')).toEqual([[BULB, 0, false]]);
    expect(cloud.callsOf('setLight')).toEqual([]);
  });

  it('takes a push from the light into GET and /events', async () => {
    const { app, cloud, lights } = await setup();
    await request(app).get(`/devices/${BULB}/light`);

    cloud.emit({ type: 'light', uuid: BULB, channel: 0, brightness: 10, source: 'push' });
    const after = await request(app).get(`/devices/${BULB}/light`);

    expect(after.body.lights[0]).toMatchObject({ brightness: 10, temperature: 50 });
    expect(lights().at(-1)).toMatchObject({ brightness: 10, source: 'push' });
  });
});
