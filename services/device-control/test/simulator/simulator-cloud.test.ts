import { ManualClock } from '@homeops/common';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { SimulatorCloud } from '../../src/adapters/simulator/simulator-cloud.adapter.js';
import type { ComposedDeviceControl } from '../../src/compose.js';
import { parseConfig } from '../../src/config.js';
import type { CloudEvent } from '../../src/domain/device-cloud.js';
import { composeTestService } from '../support/test-app.js';

let service: ComposedDeviceControl | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

async function started(cloud: SimulatorCloud) {
  service = await composeTestService(parseConfig({}), {
    cloud,
    deviceOptions: { maxMessagesPerMinute: 100, syncIntervalSeconds: 0, requestTimeoutMs: 500, commandTimeoutMs: 500 },
  });
  await service.devices.start();
  return service.app;
}

describe('SimulatorCloud', () => {
  it('offers a plug, a four-channel strip with named channels, an offline device, a garage door, blinds, a bulb, a hub and a thermostat', async () => {
    const cloud = new SimulatorCloud();
    await cloud.start();

    const devices = await cloud.listDevices();

    expect(devices.map((d) => [d.name, d.channels.length, d.online])).toEqual([
      ['Desk Lamp', 1, true],
      ['Living Room Strip', 4, true],
      ['Garage Heater', 1, false],
      ['Garage Door', 1, true],
      ['Bedroom Blinds', 1, true],
      ['Reading Light', 1, true],
      ['Heating Hub', 1, true],
      ['Living Room Thermostat', 1, true],
    ]);
    expect(devices.map((d) => d.capabilities)).toEqual([
      ['switch', 'energy'],
      ['switch'],
      ['switch'],
      ['garageDoor'],
      ['cover'],
      ['switch', 'light'],
      ['hubSensors'],
      ['thermostat'],
    ]);
    expect(devices[1]!.channels.map((c) => c.name)).toEqual(['TV', 'Speakers', 'Floor Lamp', 'USB']);
  });

  it('adds any number of extra devices for benchmarks', async () => {
    const cloud = new SimulatorCloud({ extraDevices: 47 });
    await cloud.start();

    expect(await cloud.listDevices()).toHaveLength(55);
  });

  it('refuses calls before the session started, like the real cloud', async () => {
    const cloud = new SimulatorCloud();

    await expect(cloud.listDevices()).rejects.toMatchObject({ code: 'CLOUD_UNAVAILABLE', retryAfterSeconds: 1 });
    expect(cloud.status()).toMatchObject({ backend: 'simulator', state: 'connecting' });
  });

  it('switches channels, acknowledges with a command event, announces each message it sends and refuses offline devices', async () => {
    const cloud = new SimulatorCloud();
    await cloud.start();
    const events: CloudEvent[] = [];
    cloud.onEvent((e) => events.push(e));

    await cloud.setChannel('sim-strip-0001', 1, true);

    expect(await cloud.readChannels('sim-strip-0001')).toContainEqual({ channel: 1, on: true });
    expect(events).toEqual([
      { type: 'sent', via: 'mqtt', what: 'switch command' },
      { type: 'channel', uuid: 'sim-strip-0001', channel: 1, on: true, source: 'command' },
      { type: 'sent', via: 'mqtt', what: 'state read' },
    ]);
    await expect(cloud.setChannel('sim-plug-0002', 0, true)).rejects.toMatchObject({ code: 'DEVICE_NOT_CONTROLLABLE' });
    await expect(cloud.setChannel('sim-plug-0001', 7, true)).rejects.toMatchObject({ code: 'CLOUD_ERROR' });
  });

  it('behaves like the real cloud behind the service: toggle, button press, presence and sync', async () => {
    const cloud = new SimulatorCloud({ latencyMs: 1 });
    const app = await started(cloud);

    const toggled = await request(app).post('/devices/sim-plug-0001/toggle').send({});
    cloud.pressButton('sim-plug-0001');
    const afterPress = await request(app).get('/devices/sim-plug-0001');
    cloud.setOnline('sim-plug-0002', true);
    const garage = await request(app).get('/devices/sim-plug-0002');
    cloud.renameDevice('sim-plug-0001', 'Office Lamp');
    cloud.removeDevice('sim-strip-0001');
    const sync = await request(app).post('/devices/sync');

    expect(toggled.body).toEqual({ status: 'success', device: 'Desk Lamp', action: 'toggle', channel: 0, on: true });
    expect(cloud.channelState('sim-plug-0001', 0)).toBe(false);
    expect(afterPress.body.channels[0].on).toBe(false);
    expect(garage.body).toMatchObject({ online: true, controllable: true });
    expect(sync.body).toEqual({ total: 7, added: 0, removed: 1, updated: 1 });
    expect((await request(app).get('/devices')).body.map((d: { name: string }) => d.name)).toEqual([
      'Office Lamp',
      'Garage Heater',
      'Garage Door',
      'Bedroom Blinds',
      'Reading Light',
      'Heating Hub',
      'Living Room Thermostat',
    ]);
  });

  it('runs its thermostat: read in °C, a target while it follows its schedule puts it in manual, a step off 0.5 is refused', async () => {
    const app = await started(new SimulatorCloud());
    const uuid = 'sim-thermostat-0001';

    const read = await request(app).get(`/devices/${uuid}/thermostat`);
    const set = await request(app).put(`/devices/${uuid}/thermostat/0`).send({ targetTemperature: 22.5 });
    const refused = await request(app).put(`/devices/${uuid}/thermostat/0`).send({ targetTemperature: 22.3 });
    const after = await request(app).get(`/devices/${uuid}/thermostat`);

    expect(read.body.thermostats).toEqual([expect.objectContaining({ channel: 0, on: true, mode: 'auto', currentTemperature: 20.5, targetTemperature: 21 })]);
    expect(set.body).toEqual({ status: 'success', device: 'Living Room Thermostat', channel: 0, applied: { targetTemperature: 22.5, mode: 'manual' } });
    expect(refused.status).toBe(400);
    expect(after.body.thermostats[0]).toMatchObject({ mode: 'manual', targetTemperature: 22.5, heating: true });
  });

  describe("dates the plug's days by the host's own calendar (the simulated plug stands in the same home)", () => {
    const hostZone = process.env.TZ;
    afterEach(() => {
      if (hostZone === undefined) delete process.env.TZ;
      else process.env.TZ = hostZone;
    });

    async function daysAt(zone: string, iso: string) {
      process.env.TZ = zone;
      await service?.close();
      const app = await started(new SimulatorCloud({ clock: new ManualClock(Date.parse(iso)), latencyMs: 0 }));
      const daily = await request(app).get('/devices/sim-plug-0001/energy/daily');
      expect(daily.status).toBe(200);
      return (daily.body as { days: Array<{ date: string }> }).days.map((d) => d.date);
    }

    it('ends on the local date, not the UTC one', async () => {
      // 12:00 UTC is 02:00 of the next day at UTC+14.
      expect((await daysAt('Pacific/Kiritimati', '2026-03-07T12:00:00Z')).at(-1)).toBe('2026-03-08');
      expect((await daysAt('America/Los_Angeles', '2026-03-07T03:00:00Z')).at(-1)).toBe('2026-03-06');
    });

    it('keeps the 23-hour day of a DST change as one day, seven days in a row', async () => {
      // 00:30 in New York on the day after the clocks went forward.
      expect(await daysAt('America/New_York', '2026-03-09T04:30:00Z')).toEqual([
        '2026-03-03',
        '2026-03-04',
        '2026-03-05',
        '2026-03-06',
        '2026-03-07',
        '2026-03-08',
        '2026-03-09',
      ]);
    });
  });
});
