import request from 'supertest';
import { createLogger, serve } from '@homeops/common';
import { describe, expect, it } from 'vitest';
import { SseClient } from '../support/sse-client.js';
import { eventually, metricValue } from '@homeops/test-kit';
import type { DeviceEvent } from '../../src/domain/device-events.js';
import { cloudDevice, FakeDeviceCloud, MTS200_READING, thermostat } from '../fakes/fake-device-cloud.js';
import { buildTestApp } from '../support/test-app.js';

const MTS = 'mts-1';
const PLUG = 'plug-1';

async function setup() {
  const cloud = new FakeDeviceCloud([cloudDevice({ uuid: PLUG, name: 'Desk Lamp' }), thermostat({ uuid: MTS, name: 'Living room' })]);
  const built = await buildTestApp({ cloud });
  const seen: DeviceEvent[] = [];
  built.devices.onEvent((e) => seen.push(e));
  return { ...built, cloud, thermostatEvents: () => seen.filter((e) => e.type === 'thermostat') };
}

describe('GET /devices/:uuid/thermostat', () => {
  it('reads the thermostat once, then answers from what it knows with the age of it', async () => {
    const { app, cloud } = await setup();

    const first = await request(app).get(`/devices/${MTS}/thermostat`);
    const second = await request(app).get(`/devices/${MTS}/thermostat`);

    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ uuid: MTS, name: 'Living room', thermostats: [MTS200_READING], ageSeconds: 0 });
    expect(typeof first.body.at).toBe('string');
    expect(second.body.thermostats).toEqual(first.body.thermostats);
    expect(cloud.callsOf('readThermostats')).toEqual([[MTS]]);
  });

  it('shows a push from the device in the next read and as a thermostat event', async () => {
    const { app, cloud, thermostatEvents } = await setup();
    await request(app).get(`/devices/${MTS}/thermostat`);

    cloud.emit({ type: 'thermostat', uuid: MTS, channel: 0, source: 'push', currentTemperature: 22.4, heating: false });
    const res = await request(app).get(`/devices/${MTS}/thermostat`);

    expect(res.body.thermostats[0]).toMatchObject({ currentTemperature: 22.4, heating: false, targetTemperature: 21, mode: 'manual' });
    expect(thermostatEvents().at(-1)).toMatchObject({ uuid: MTS, name: 'Living room', channel: 0, currentTemperature: 22.4, source: 'push' });
    expect(cloud.callsOf('readThermostats')).toHaveLength(1);
  });

  it('takes a complete push before any read, and waits for a read on a partial one (overheat untold is partial)', async () => {
    const { app, cloud, thermostatEvents } = await setup();

    cloud.emit({ type: 'thermostat', uuid: MTS, channel: 0, source: 'push', currentTemperature: 18 });
    const { overheat: _overheat, ...untoldOverheat } = MTS200_READING;
    cloud.emit({ type: 'thermostat', uuid: MTS, source: 'push', ...untoldOverheat, currentTemperature: 16 });
    const partial = thermostatEvents().length;
    cloud.emit({ type: 'thermostat', uuid: MTS, source: 'push', ...MTS200_READING, currentTemperature: 17 });
    const res = await request(app).get(`/devices/${MTS}/thermostat`);

    expect(partial).toBe(0);
    expect(res.body.thermostats[0]).toMatchObject({ currentTemperature: 17 });
    expect(cloud.callsOf('readThermostats')).toEqual([]);
  });

  it('reads a thermostat once when a partial push comes before any read, and streams what it read', async () => {
    const { cloud, thermostatEvents } = await setup();

    cloud.emit({ type: 'thermostat', uuid: MTS, channel: 0, source: 'push', currentTemperature: 18 });
    cloud.emit({ type: 'thermostat', uuid: MTS, channel: 0, source: 'push', currentTemperature: 18.5 });
    await eventually(() => thermostatEvents().length === 1, 'the read after the push');

    expect(cloud.callsOf('readThermostats')).toEqual([[MTS]]);
    expect(thermostatEvents()[0]).toMatchObject({ uuid: MTS, channel: 0, source: 'read', currentTemperature: MTS200_READING.currentTemperature });
  });

  it('shows the overheat protection and sensor it read, a tripped protection pushed, and null on a thermostat without them', async () => {
    const MTS960 = 'mts-960';
    const cloud = new FakeDeviceCloud([thermostat({ uuid: MTS, name: 'Living room' }), thermostat({ uuid: MTS960, name: 'Heater socket', type: 'mts960' })]);
    const { app, devices } = await buildTestApp({ cloud });
    const seen: DeviceEvent[] = [];
    devices.onEvent((e) => seen.push(e));
    await request(app).get(`/devices/${MTS}/thermostat`);

    const overheating = { enabled: true, warning: 'overheating', threshold: 33.5, temperature: 34 } as const;
    cloud.emit({ type: 'thermostat', uuid: MTS, channel: 0, source: 'push', overheat: overheating });
    const res = await request(app).get(`/devices/${MTS}/thermostat`);
    cloud.thermostatReading = { ...MTS200_READING, overheat: null, sensor: null };
    const without = await request(app).get(`/devices/${MTS960}/thermostat`);

    expect(res.body.thermostats[0]).toMatchObject({ overheat: overheating, sensor: 'internal', windowOpen: false });
    expect(seen.filter((e) => e.type === 'thermostat' && e.uuid === MTS).at(-1)).toMatchObject({
      uuid: MTS,
      source: 'push',
      overheat: overheating,
      sensor: 'internal',
    });
    expect(without.body.thermostats[0]).toMatchObject({ overheat: null, sensor: null });
    expect(cloud.callsOf('readThermostats')).toEqual([[MTS], [MTS960]]);
  });

  it('refuses a device without a thermostat with 409, reading nothing', async () => {
    const { app, cloud } = await setup();

    const res = await request(app).get(`/devices/${PLUG}/thermostat`);

    expect(res.status).toBe(409);
    expect(cloud.callsOf('readThermostats')).toEqual([]);
  });
});

describe('PUT /devices/:uuid/thermostat/:channel', () => {
  it('sends on, mode and target in one command and announces the result', async () => {
    const { app, cloud, thermostatEvents } = await setup();

    const res = await request(app).put(`/devices/${MTS}/thermostat/0`).send({ on: true, mode: 'heat', targetTemperature: 22.5 });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'success', device: 'Living room', channel: 0, applied: { on: true, mode: 'heat', targetTemperature: 22.5 } });
    expect(cloud.callsOf('setThermostat')).toEqual([[MTS, 0, { on: true, mode: 'heat', targetTemperature: 22.5 }]]);
    expect(thermostatEvents().at(-1)).toMatchObject({ mode: 'heat', targetTemperature: 22.5, source: 'command' });
  });

  it('reports the manual mode a target set in auto switches the thermostat to', async () => {
    const { app, cloud } = await setup();
    cloud.thermostatReading = { ...MTS200_READING, mode: 'auto' };

    const res = await request(app).put(`/devices/${MTS}/thermostat/0`).send({ targetTemperature: 20 });
    const read = await request(app).get(`/devices/${MTS}/thermostat`);

    expect(res.body.applied).toEqual({ targetTemperature: 20, mode: 'manual' });
    expect(read.body.thermostats[0]).toMatchObject({ mode: 'manual', targetTemperature: 20 });
  });

  it.each([
    [{ targetTemperature: 4.5 }, 'targetTemperature', 'must be between 5 and 35'],
    [{ targetTemperature: 35.5 }, 'targetTemperature', 'must be between 5 and 35'],
    [{ mode: 'timer' }, 'mode', 'must be one of heat, cool, economy, auto, manual'],
  ])('refuses %j with 400 naming %s, and sends nothing', async (body, path, message) => {
    const { app, cloud } = await setup();

    const res = await request(app).put(`/devices/${MTS}/thermostat/0`).send(body);

    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([{ path, message }]);
    expect(cloud.callsOf('setThermostat')).toEqual([]);
  });

  it('refuses a target off the 0.5 °C step, a target with auto, an unknown mode and an empty body before reading anything', async () => {
    const { app, cloud } = await setup();

    const step = await request(app).put(`/devices/${MTS}/thermostat/0`).send({ targetTemperature: 21.3 });
    const withAuto = await request(app).put(`/devices/${MTS}/thermostat/0`).send({ mode: 'auto', targetTemperature: 21 });
    const unknown = await request(app).put(`/devices/${MTS}/thermostat/0`).send({ mode: 'boost' });
    const empty = await request(app).put(`/devices/${MTS}/thermostat/0`).send({});
    const channel = await request(app).put(`/devices/${MTS}/thermostat/3`).send({ on: true });

    expect([step.status, withAuto.status, unknown.status, empty.status, channel.status]).toEqual([400, 400, 400, 400, 400]);
    expect(step.body.details).toEqual([{ path: 'body.targetTemperature', message: 'must be in steps of 0.5' }]);
    expect(withAuto.body.details).toEqual([{ path: 'targetTemperature', message: 'mode auto has no target of its own; give the mode or a target' }]);
    expect(cloud.calls.filter((c) => c.method === 'readThermostats' || c.method === 'setThermostat')).toEqual([]);
  });

  it('refuses with the range it learnt without reading again', async () => {
    const { app, cloud } = await setup();
    await request(app).get(`/devices/${MTS}/thermostat`);

    const res = await request(app).put(`/devices/${MTS}/thermostat/0`).send({ targetTemperature: 40 });

    expect(res.status).toBe(400);
    expect(cloud.callsOf('readThermostats')).toHaveLength(1);
    expect(cloud.callsOf('setThermostat')).toEqual([]);
  });
});

describe('GET /metrics (thermostats)', () => {
  it("exposes each known thermostat's temperature, target and heating, and none before it told them", async () => {
    const { app, cloud } = await setup();

    const before = (await request(app).get('/metrics').expect(200)).text;
    await request(app).get(`/devices/${MTS}/thermostat`);
    cloud.emit({ type: 'thermostat', uuid: MTS, channel: 0, source: 'push', currentTemperature: 20.25, heating: false });
    const after = (await request(app).get('/metrics').expect(200)).text;

    const labels = { device: MTS, channel: '0' };
    expect(before).not.toContain(`device="${MTS}"`);
    expect(metricValue(after, 'homeops_thermostat_temperature_celsius', labels)).toBe(20.25);
    expect(metricValue(after, 'homeops_thermostat_target_celsius', labels)).toBe(21);
    expect(metricValue(after, 'homeops_thermostat_heating', labels)).toBe(0);
  });
});

describe('GET /events (thermostats)', () => {
  it('streams a change at the thermostat, arriving as a push, as a thermostat event with the whole reading', async () => {
    const { app, cloud, close } = await setup();
    const server = await serve({ app, port: 0, host: '127.0.0.1', logger: createLogger({ service: 'test', level: 'silent' }), graceMs: 500 });
    const client = await SseClient.connect(`http://127.0.0.1:${server.port}/events`);
    try {
      await request(app).get(`/devices/${MTS}/thermostat`);

      cloud.emit({ type: 'thermostat', uuid: MTS, channel: 0, source: 'push', mode: 'heat', targetTemperature: 22 });
      const event = await client.waitFor('thermostat', (d: { source: string }) => d.source === 'push');

      expect(event.data).toEqual({
        type: 'thermostat',
        uuid: MTS,
        name: 'Living room',
        ...MTS200_READING,
        mode: 'heat',
        targetTemperature: 22,
        source: 'push',
      });
    } finally {
      await client.close();
      await close();
      await server.stop();
    }
  });
});
