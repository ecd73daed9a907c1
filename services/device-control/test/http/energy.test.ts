import { ManualClock } from '@homeops/common';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import type { DeviceEvent } from '../../src/domain/device-events.js';
import { cloudDevice, FakeDeviceCloud } from '../fakes/fake-device-cloud.js';
import { buildTestApp } from '../support/test-app.js';

const METER = 'meter-1';

async function setup() {
  const clock = new ManualClock(Date.parse('2026-11-24T10:00:00.000Z'));
  const cloud = new FakeDeviceCloud([cloudDevice({ uuid: METER, name: 'Freezer', capabilities: ['switch', 'energy'] }), cloudDevice({ uuid: 'plug-1' })]);
  const built = await buildTestApp({ cloud, clock, service: { energyCache: { powerMaxAgeMs: 10_000, dailyMaxAgeMs: 3_600_000 } } });
  const seen: DeviceEvent[] = [];
  built.devices.onEvent((e) => seen.push(e));
  return { ...built, cloud, advance: (ms: number) => clock.advance(ms), events: () => seen };
}

describe('energy plugs', () => {
  it('reads power once per 10 s however often asked, and each answer says how old the reading is', async () => {
    const { app, cloud, advance, events } = await setup();

    const first = await request(app).get(`/devices/${METER}/energy`);
    advance(4_000);
    const cached = await request(app).get(`/devices/${METER}/energy`);
    advance(7_000);
    cloud.power = { power: 120, voltage: 230, current: 0.52 };
    const fresh = await request(app).get(`/devices/${METER}/energy`);

    expect(first.body).toEqual({ uuid: METER, name: 'Freezer', power: 60.5, voltage: 231.2, current: 0.262, at: '2026-11-24T10:00:00.000Z', ageSeconds: 0 });
    expect(cached.body).toMatchObject({ power: 60.5, ageSeconds: 4 });
    expect(fresh.body).toMatchObject({ power: 120, ageSeconds: 0, at: '2026-11-24T10:00:11.000Z' });
    expect(cloud.callsOf('readPower')).toHaveLength(2);
    expect(events().filter((e) => e.type === 'power')).toHaveLength(2);
  });

  it('reads the daily energy once an hour', async () => {
    const { app, cloud, advance } = await setup();

    const first = await request(app).get(`/devices/${METER}/energy/daily`);
    advance(30 * 60_000);
    const cached = await request(app).get(`/devices/${METER}/energy/daily`);

    expect(first.body).toMatchObject({
      days: [
        { date: '2026-11-22', kWh: 1.25 },
        { date: '2026-11-23', kWh: 0.8 },
      ],
      ageSeconds: 0,
    });
    expect(cached.body.ageSeconds).toBe(1800);
    expect(cloud.callsOf('readDailyEnergy')).toHaveLength(1);
  });

  it('answers 409 for a device that measures nothing, sending nothing', async () => {
    const { app, cloud } = await setup();
    const plug = await request(app).get('/devices/plug-1/energy');

    expect(plug.status).toBe(409);
    expect(plug.body.details).toEqual([{ path: 'device', message: 'the device has no energy capability' }]);
    expect(cloud.callsOf('readPower')).toEqual([]);
  });
});
