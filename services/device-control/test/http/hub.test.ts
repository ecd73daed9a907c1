import { ManualClock } from '@homeops/common';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import type { DeviceEvent } from '../../src/domain/device-events.js';
import { cloudDevice, FakeDeviceCloud, hub } from '../fakes/fake-device-cloud.js';
import { buildTestApp } from '../support/test-app.js';

const HUB = 'hub-1';

async function setup() {
  const clock = new ManualClock(Date.parse('2026-11-24T10:00:00.000Z'));
  const cloud = new FakeDeviceCloud([hub({ uuid: HUB, name: 'Hub' }), cloudDevice({ uuid: 'plug-1' })]);
  const built = await buildTestApp({ cloud, clock });
  const seen: DeviceEvent[] = [];
  built.devices.onEvent((e) => seen.push(e));
  return { ...built, cloud, advance: (ms: number) => clock.advance(ms), hubEvents: () => seen.filter((e) => e.type === 'hub') };
}

describe('hubs and the devices behind them', () => {
  it("lists valves and sensors with readings and battery, read once a minute at most, with the reading's age", async () => {
    const { app, cloud, advance, hubEvents } = await setup();

    const first = await request(app).get(`/devices/${HUB}/hub`);
    advance(30_000);
    const cached = await request(app).get(`/devices/${HUB}/hub`);

    expect(first.body).toMatchObject({ uuid: HUB, name: 'Hub', ageSeconds: 0 });
    expect(first.body.subdevices).toEqual([
      expect.objectContaining({ id: 'valve-1', kind: 'valve', battery: 80, temperature: 19.5, on: true, targetTemperature: 21 }),
      expect.objectContaining({ id: 'sensor-1', kind: 'sensor', battery: 45, temperature: 12.3, humidity: 71.5 }),
    ]);
    expect(cached.body.ageSeconds).toBe(30);
    expect(cloud.callsOf('readHub')).toHaveLength(1);
    expect(hubEvents()).toHaveLength(1);
    expect((await request(app).get(`/devices/${HUB}`)).body).toMatchObject({ capabilities: ['hubSensors'], switchable: false });
  });

  it('turns a valve off and sets its target, and announces it', async () => {
    const { app, cloud, hubEvents } = await setup();
    await request(app).get(`/devices/${HUB}/hub`);

    const res = await request(app).put(`/devices/${HUB}/hub/valve-1`).send({ on: false, targetTemperature: 18.5 });

    expect(res.body).toEqual({ status: 'success', device: 'Hub', id: 'valve-1', applied: { on: false, targetTemperature: 18.5 } });
    expect(cloud.callsOf('setValve')).toEqual([[HUB, 'valve-1', { on: false, targetTemperature: 18.5 }]]);
    expect(hubEvents().at(-1)).toMatchObject({
      source: 'command',
      subdevices: [expect.objectContaining({ id: 'valve-1', on: false, targetTemperature: 18.5 }), expect.anything()],
    });
  });

  it('takes a push from a valve into GET and /events; a push before any read starts one read, which carries it', async () => {
    const { app, cloud, hubEvents } = await setup();
    cloud.emit({ type: 'hubDevice', uuid: HUB, id: 'valve-1', change: { on: false }, source: 'push' });
    await request(app).get(`/devices/${HUB}/hub`);

    cloud.emit({ type: 'hubDevice', uuid: HUB, id: 'valve-1', change: { on: false, temperature: 18 }, source: 'push' });
    const after = await request(app).get(`/devices/${HUB}/hub`);

    expect(after.body.subdevices[0]).toMatchObject({ id: 'valve-1', on: false, temperature: 18 });
    expect(hubEvents().map((e) => e.type === 'hub' && e.source)).toEqual(['read', 'push']);
    expect(cloud.callsOf('readHub')).toHaveLength(1);
  });

  it("refuses before sending: a target outside the valve's range (400), a sensor (409), an unknown id (404), odd input (400)", async () => {
    const { app, cloud } = await setup();

    const hot = await request(app).put(`/devices/${HUB}/hub/valve-1`).send({ targetTemperature: 40 });
    const sensor = await request(app).put(`/devices/${HUB}/hub/sensor-1`).send({ on: true });
    const unknown = await request(app).put(`/devices/${HUB}/hub/nope`).send({ on: true });
    const step = await request(app).put(`/devices/${HUB}/hub/valve-1`).send({ targetTemperature: 20.3 });
    const empty = await request(app).put(`/devices/${HUB}/hub/valve-1`).send({});
    const plug = await request(app).get('/devices/plug-1/hub');

    expect(hot.status).toBe(400);
    expect(hot.body.details).toEqual([{ path: 'targetTemperature', message: 'must be between 5 and 35' }]);
    expect(sensor.status).toBe(409);
    expect(sensor.body.details).toEqual([{ path: 'id', message: 'sensor-1 is not a valve' }]);
    expect(unknown.status).toBe(404);
    expect(step.status).toBe(400);
    expect(step.body.details).toEqual([{ path: 'body.targetTemperature', message: 'must be in steps of 0.5' }]);
    expect(empty.status).toBe(400);
    expect(plug.status).toBe(409);
    expect(cloud.callsOf('setValve')).toEqual([]);
  });
});
