import { ManualClock } from '@homeops/common';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { eventually, metricValue } from '@homeops/test-kit';
import { SENSOR_STATES } from '../../src/families/hub/http/hub.metrics.js';
import type { DeviceEvent } from '../../src/domain/device-events.js';
import type { HubSubDeviceReading } from '../../src/families/hub/domain/hub.types.js';
import { FakeDeviceCloud, hub, safetySensors } from '../fakes/fake-device-cloud.js';
import { buildTestApp } from '../support/test-app.js';

const HUB = 'hub-1';
async function setup() {
  const clock = new ManualClock(Date.parse('2026-11-28T10:00:00.000Z'));
  const cloud = new FakeDeviceCloud([hub({ uuid: HUB, name: 'Hub' })]);
  cloud.hubDevices.push(...safetySensors());
  const built = await buildTestApp({ cloud, clock });
  const seen: DeviceEvent[] = [];
  built.devices.onEvent((e) => seen.push(e));
  const hubEvents = () => seen.flatMap((e) => (e.type === 'hub' ? [e] : []));
  const push = (id: string, change: Partial<HubSubDeviceReading>) => cloud.emit({ type: 'hubDevice', uuid: HUB, id, change, source: 'push' });
  return { ...built, cloud, hubEvents, push };
}

const sensorOf = (body: { subdevices: HubSubDeviceReading[] }, id: string) => body.subdevices.find((d) => d.id === id);

describe('GET /devices/:uuid/hub with safety sensors', () => {
  it('lists leak, smoke and contact sensors with their state, and leak, smoke and open null on the other kinds', async () => {
    const { app } = await setup();

    const res = await request(app).get(`/devices/${HUB}/hub`);

    expect(res.status).toBe(200);
    expect(res.body.subdevices.map((d: HubSubDeviceReading) => [d.id, d.kind, d.leak, d.smoke, d.open])).toEqual([
      ['valve-1', 'valve', null, null, null],
      ['sensor-1', 'sensor', null, null, null],
      ['leak-1', 'leak', false, null, null],
      ['smoke-1', 'smoke', null, 'clear', null],
      ['door-1', 'contact', null, null, false],
    ]);
  });

  it('shows each sensor push in the GET and as a hub event at once, without reading again', async () => {
    const { app, cloud, hubEvents, push } = await setup();
    await request(app).get(`/devices/${HUB}/hub`);

    push('leak-1', { leak: true });
    push('smoke-1', { smoke: 'alarm' });
    push('door-1', { open: true });
    push('smoke-1', { smoke: 'muted' });
    const after = await request(app).get(`/devices/${HUB}/hub`);

    expect(sensorOf(after.body, 'leak-1')).toMatchObject({ leak: true });
    expect(sensorOf(after.body, 'smoke-1')).toMatchObject({ smoke: 'muted' });
    expect(sensorOf(after.body, 'door-1')).toMatchObject({ open: true });
    const pushed = hubEvents().filter((e) => e.source === 'push');
    expect(pushed.map((e) => [sensorOf(e, 'leak-1')?.leak, sensorOf(e, 'smoke-1')?.smoke, sensorOf(e, 'door-1')?.open])).toEqual([
      [true, 'clear', false],
      [true, 'alarm', false],
      [true, 'alarm', true],
      [true, 'muted', true],
    ]);
    expect(cloud.callsOf('readHub')).toHaveLength(1);
  });

  it('reads a hub once when a push comes before any read, so the alarm is known without anyone asking', async () => {
    const { cloud, hubEvents, push } = await setup();
    const leak = cloud.hubDevices.find((d) => d.id === 'leak-1')!;
    leak.leak = true;

    push('leak-1', { leak: true });
    push('leak-1', { leak: true });
    await eventually(() => hubEvents().length === 1, 'the read the push started');
    await new Promise((resolve) => setImmediate(resolve));

    expect(cloud.callsOf('readHub')).toHaveLength(1);
    expect(hubEvents().map((e) => [e.source, sensorOf(e, 'leak-1')?.leak])).toEqual([['read', true]]);
  });

  it('refuses a valve command to a safety sensor (409) and sends nothing', async () => {
    const { app, cloud } = await setup();
    await request(app).get(`/devices/${HUB}/hub`);

    const res = await request(app).put(`/devices/${HUB}/hub/smoke-1`).send({ on: false });

    expect(res.status).toBe(409);
    expect(res.body.details).toEqual([{ path: 'id', message: 'smoke-1 is not a valve' }]);
    expect(cloud.callsOf('setValve')).toEqual([]);
  });
});

describe('GET /metrics with safety sensors', () => {
  it('counts the sensors in each state, every pair at 0 before the first read, and follows the pushes', async () => {
    const { app, push } = await setup();
    const scrape = async () => (await request(app).get('/metrics').expect(200)).text;
    const value = (text: string, kind: string, state: string) => metricValue(text, 'homeops_hub_sensors', { kind, state });

    const before = await scrape();
    for (const [kind, states] of Object.entries(SENSOR_STATES))
      for (const state of states) expect([kind, state, value(before, kind, state)]).toEqual([kind, state, 0]);
    await request(app).get(`/devices/${HUB}/hub`);
    push('leak-1', { leak: true });
    push('smoke-1', { smoke: 'muted' });
    const after = await scrape();

    expect([value(after, 'leak', 'wet'), value(after, 'leak', 'dry')]).toEqual([1, 0]);
    expect([value(after, 'smoke', 'muted'), value(after, 'smoke', 'clear')]).toEqual([1, 0]);
    expect([value(after, 'contact', 'closed'), value(after, 'contact', 'open')]).toEqual([1, 0]);
  });
});
