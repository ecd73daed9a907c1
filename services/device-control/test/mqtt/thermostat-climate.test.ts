import { describe, expect, it } from 'vitest';
import { THERMOSTAT_MQTT } from '../../src/families/thermostat/adapters/thermostat.mqtt.js';
import type { DeviceEvent } from '../../src/domain/device-events.js';
import { FakeDeviceCloud, MTS200_READING, thermostat } from '../fakes/fake-device-cloud.js';
import { buildTestApp } from '../support/test-app.js';

const MTS = 'mts-1';
const AT = `homeops/devices/${MTS}`;
/** A command's refusal, thrown or rejected (the adapter takes both). */
const refusal = (run: () => Promise<unknown>) =>
  Promise.resolve()
    .then(run)
    .then(
      () => null,
      (e: { code?: string }) => e,
    );
const command = (suffix: string) => THERMOSTAT_MQTT.commands!.find((c) => c.suffix === `thermostats/+/${suffix}/set`)!;

async function setup(reading = MTS200_READING) {
  const cloud = new FakeDeviceCloud([thermostat({ uuid: MTS, name: 'Living room' })]);
  cloud.thermostatReading = reading;
  const { devices } = await buildTestApp({ cloud });
  const published = new Map<string, string>();
  const entities = THERMOSTAT_MQTT.entities({ at: () => AT, state: (t, p) => void published.set(t, p), event: () => undefined });
  devices.onEvent((e: DeviceEvent) => entities.onEvent?.(e));
  return { cloud, devices, entities, published };
}

describe('the thermostat climate entity (MQTT discovery)', () => {
  it('offers a climate per thermostat from its reading: HVAC modes, its own modes as presets, its range', async () => {
    const { devices, entities, published } = await setup({ ...MTS200_READING, mode: 'auto' });

    await entities.readAtStart!(devices, devices.getDevice(MTS));
    const components = entities.components!(devices.getDevice(MTS), 'homeops_mts', AT);

    expect(components).toEqual({
      thermostat0: {
        platform: 'climate',
        uniqueId: 'homeops_mts_thermostat0',
        name: null,
        options: expect.objectContaining({
          modes: ['off', 'heat', 'auto'],
          preset_modes: ['heat', 'cool', 'economy', 'auto', 'manual'],
          temperature_command_topic: `${AT}/thermostats/0/target/set`,
          current_temperature_topic: `${AT}/thermostats/0/current`,
          action_topic: `${AT}/thermostats/0/action`,
          min_temp: 5,
          max_temp: 35,
          temp_step: 0.5,
        }),
      },
    });
    expect(Object.fromEntries(published)).toEqual({
      [`${AT}/thermostats/0/mode`]: 'auto',
      [`${AT}/thermostats/0/preset`]: 'auto',
      [`${AT}/thermostats/0/action`]: 'heating',
      [`${AT}/thermostats/0/target`]: '21',
      [`${AT}/thermostats/0/current`]: '19.5',
    });
  });

  it('shows idle once it stops heating, and off when turned off', async () => {
    const { cloud, devices, entities, published } = await setup();
    await entities.readAtStart!(devices, devices.getDevice(MTS));

    cloud.emit({ type: 'thermostat', uuid: MTS, channel: 0, source: 'push', heating: false, currentTemperature: 21.2 });
    const idle = published.get(`${AT}/thermostats/0/action`);
    cloud.emit({ type: 'thermostat', uuid: MTS, channel: 0, source: 'push', on: false });

    expect(idle).toBe('idle');
    expect(published.get(`${AT}/thermostats/0/action`)).toBe('off');
    expect(published.get(`${AT}/thermostats/0/mode`)).toBe('off');
    expect(published.get(`${AT}/thermostats/0/current`)).toBe('21.2');
  });

  it("runs Home Assistant's commands through the thermostat's rules: heat leaves the schedule for manual, a target outside its range sends nothing", async () => {
    const { cloud, devices, entities } = await setup({ ...MTS200_READING, mode: 'auto' });
    await entities.readAtStart!(devices, devices.getDevice(MTS));

    await command('mode').run(devices, MTS, '0', 'heat', entities);
    await command('target').run(devices, MTS, '0', '22.5', entities);
    await command('preset').run(devices, MTS, '0', 'economy', entities);
    const outside = await refusal(() => command('target').run(devices, MTS, '0', '40', entities));
    const timer = await refusal(() => command('preset').run(devices, MTS, '0', 'timer', entities));
    const words = await refusal(() => command('target').run(devices, MTS, '0', 'warm', entities));

    expect(cloud.callsOf('setThermostat')).toEqual([
      [MTS, 0, { on: true, mode: 'manual' }],
      [MTS, 0, { targetTemperature: 22.5 }],
      [MTS, 0, { mode: 'economy' }],
    ]);
    expect([outside, timer, words]).toEqual([
      expect.objectContaining({ code: 'VALIDATION_FAILED' }),
      expect.objectContaining({ code: 'VALIDATION_FAILED' }),
      expect.objectContaining({ code: 'VALIDATION_FAILED' }),
    ]);
  });
});
