import request from 'supertest';
import { createLogger, EventStreamHub } from '@homeops/common';
import { afterEach, describe, expect, it } from 'vitest';
import { SimulatorCloud } from '../../src/adapters/simulator/simulator-cloud.adapter.js';
import { createApp } from '../../src/app.js';
import type { CloudEvent } from '../../src/domain/device-cloud.js';
import { DeviceService } from '../../src/domain/device.service.js';
import { DOMAIN_FAMILIES } from '../../src/families/index.js';

let service: DeviceService | undefined;
afterEach(async () => {
  await service?.stop();
  service = undefined;
});

async function started(cloud: SimulatorCloud) {
  const logger = createLogger({ service: 'test', level: 'silent' });
  service = new DeviceService(
    cloud,
    { families: DOMAIN_FAMILIES, maxMessagesPerMinute: 100, syncIntervalSeconds: 0, requestTimeoutMs: 500, commandTimeoutMs: 500 },
    logger,
  );
  const app = createApp({ logger, cloud, devices: service, streams: new EventStreamHub() }, { API_KEY: undefined });
  await service.start();
  return app;
}

describe('SimulatorCloud', () => {
  it('offers a plug, a four-channel strip with named channels, an offline device, a garage door, blinds, a bulb and a hub', async () => {
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
    ]);
    expect(devices.map((d) => d.capabilities)).toEqual([
      ['switch', 'energy'],
      ['switch'],
      ['switch'],
      ['garageDoor'],
      ['cover'],
      ['switch', 'light'],
      ['hubSensors'],
    ]);
    expect(devices[1]!.channels.map((c) => c.name)).toEqual(['TV', 'Speakers', 'Floor Lamp', 'USB']);
  });

  it('adds any number of extra devices for benchmarks', async () => {
    const cloud = new SimulatorCloud({ extraDevices: 47 });
    await cloud.start();

    expect(await cloud.listDevices()).toHaveLength(54);
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
    expect(sync.body).toEqual({ total: 6, added: 0, removed: 1, updated: 1 });
    expect((await request(app).get('/devices')).body.map((d: { name: string }) => d.name)).toEqual([
      'Office Lamp',
      'Garage Heater',
      'Garage Door',
      'Bedroom Blinds',
      'Reading Light',
      'Heating Hub',
    ]);
  });
});
