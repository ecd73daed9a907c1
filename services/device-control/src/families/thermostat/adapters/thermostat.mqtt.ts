import { AppError } from '@homeops/common/core';
import type { DiscoveryComponent } from '@homeops/common/mqtt';
import { channelOf, oneOf } from '../../../adapters/mqtt/command-payloads.js';
import { channelNameOf, type MqttFamily, type MqttFamilyEntities } from '../../../adapters/mqtt/mqtt-family.js';
import type { DeviceView } from '../../../domain/device.js';
import { THERMOSTAT_MODES, type ThermostatChange, type ThermostatMode, type ThermostatReading } from '../domain/thermostat.types.js';
import { THERMOSTATS } from '../domain/thermostats.js';

type Value = 'mode' | 'preset' | 'target' | 'current' | 'action';

/** A thermostat's topics under a device's `<base>/devices/<slug>`. */
const topic = (at: string, channel: number, what: Value) => `${at}/thermostats/${channel}/${what}`;
const setTopic = (at: string, channel: number, what: 'mode' | 'preset' | 'target') => `${at}/thermostats/${channel}/${what}/set`;

/** Home Assistant's HVAC modes for a thermostat: off, heat (any mode with a target of its own) and auto (its schedule). */
const HA_MODES = ['off', 'heat', 'auto'] as const;

/** The HVAC mode Home Assistant shows. */
export const haModeOf = (t: Pick<ThermostatReading, 'on' | 'mode'>): string => (!t.on ? 'off' : t.mode === 'auto' ? 'auto' : 'heat');

/** What it does now, as Home Assistant's `hvac_action` says it. */
export const actionOf = (t: Pick<ThermostatReading, 'on' | 'heating' | 'cooling'>): string =>
  !t.on ? 'off' : t.heating ? 'heating' : t.cooling ? 'cooling' : 'idle';

/** The states of a thermostat, topic → payload (a target it lacks left out). */
export function thermostatStatesOf(at: string, t: ThermostatReading): Array<[string, string]> {
  const states: Array<[string, string]> = [
    [topic(at, t.channel, 'mode'), haModeOf(t)],
    [topic(at, t.channel, 'preset'), t.mode],
    [topic(at, t.channel, 'action'), actionOf(t)],
  ];
  if (t.targetTemperature !== null) states.push([topic(at, t.channel, 'target'), String(t.targetTemperature)]);
  if (t.currentTemperature !== null) states.push([topic(at, t.channel, 'current'), String(t.currentTemperature)]);
  return states;
}

function climate(device: DeviceView, deviceId: string, root: string, t: ThermostatReading): DiscoveryComponent {
  const name = device.channels.find((c) => c.channel === t.channel)?.name ?? '';
  return {
    platform: 'climate',
    uniqueId: `${deviceId}_thermostat${t.channel}`,
    name: channelNameOf(device, t.channel, name),
    options: {
      modes: [...HA_MODES],
      mode_state_topic: topic(root, t.channel, 'mode'),
      mode_command_topic: setTopic(root, t.channel, 'mode'),
      preset_modes: [...t.modes],
      preset_mode_state_topic: topic(root, t.channel, 'preset'),
      preset_mode_command_topic: setTopic(root, t.channel, 'preset'),
      temperature_state_topic: topic(root, t.channel, 'target'),
      temperature_command_topic: setTopic(root, t.channel, 'target'),
      current_temperature_topic: topic(root, t.channel, 'current'),
      action_topic: topic(root, t.channel, 'action'),
      min_temp: t.minTemperature,
      max_temp: t.maxTemperature,
      temp_step: 0.5,
      precision: 0.1,
      temperature_unit: 'C',
    },
  };
}

/** The entities, and the thermostats as they last told. */
interface ThermostatEntities extends MqttFamilyEntities {
  readingOf(uuid: string, channel: number): ThermostatReading | undefined;
}

/** An HVAC mode from Home Assistant: off; heat leaves the schedule for the manual (or heat) mode; auto follows it. */
function hvacChange(text: string, known: ThermostatReading | undefined): ThermostatChange {
  const mode = oneOf(text, ['OFF', 'HEAT', 'AUTO']);
  if (mode === 'OFF') return { on: false };
  if (mode === 'AUTO') return { on: true, mode: 'auto' };
  if (known?.mode !== 'auto') return { on: true };
  return { on: true, mode: known.modes.includes('manual') ? 'manual' : 'heat' };
}

function presetOf(text: string): ThermostatMode {
  const word = text.trim().toLowerCase();
  if ((THERMOSTAT_MODES as readonly string[]).includes(word)) return word as ThermostatMode;
  throw new AppError('VALIDATION_FAILED', `The preset must be one of ${THERMOSTAT_MODES.join(', ')}`, {
    details: [{ path: 'payload', message: `must be one of ${THERMOSTAT_MODES.join(', ')}` }],
  });
}

function targetOf(text: string): number {
  const value = Number(text.trim());
  if (text.trim() === '' || !Number.isFinite(value))
    throw new AppError('VALIDATION_FAILED', 'A temperature must be a number', { details: [{ path: 'payload', message: 'must be a number' }] });
  return value;
}

/**
 * Thermostats: a `climate` per channel (off/heat/auto, the thermostat's own modes as presets, target, current
 * temperature, heating/idle), from its last reading; its commands run through the same rules as PUT
 * /devices/:uuid/thermostat/:channel. They push their changes, so nothing is read in the background.
 */
export const THERMOSTAT_MQTT: MqttFamily<ThermostatEntities> = {
  entities: ({ at, state }) => {
    const known = new Map<string, Map<number, ThermostatReading>>();
    return {
      readingOf: (uuid, channel) => known.get(uuid)?.get(channel),
      components(device, deviceId, root) {
        const components: Record<string, DiscoveryComponent> = {};
        for (const t of known.get(device.uuid)?.values() ?? []) components[`thermostat${t.channel}`] = climate(device, deviceId, root, t);
        return components;
      },
      onEvent(event) {
        if (event.type !== 'thermostat') return false;
        const { type: _type, uuid, name: _name, source: _source, ...reading } = event;
        const channels = known.get(uuid) ?? new Map<number, ThermostatReading>();
        const shape = (t: ThermostatReading | undefined) => JSON.stringify(t && [t.modes, t.minTemperature, t.maxTemperature]);
        const changed = shape(channels.get(reading.channel)) !== shape(reading);
        channels.set(reading.channel, reading);
        known.set(uuid, channels);
        for (const [t, payload] of thermostatStatesOf(at(uuid), reading)) state(t, payload);
        return changed;
      },
      readAtStart: (devices, device) => (device.capabilities.includes(THERMOSTATS.capability) ? devices.use(THERMOSTATS).read(device.uuid) : undefined),
    };
  },
  commands: [
    {
      suffix: 'thermostats/+/mode/set',
      run: (devices, uuid, key, text, entities) =>
        devices.use(THERMOSTATS).set(uuid, channelOf(key), hvacChange(text, entities.readingOf(uuid, channelOf(key)))),
      states: (at, _uuid, key) => [topic(at, Number(key), 'mode'), topic(at, Number(key), 'preset')],
    },
    {
      suffix: 'thermostats/+/preset/set',
      run: (devices, uuid, key, text) => devices.use(THERMOSTATS).set(uuid, channelOf(key), { mode: presetOf(text) }),
      states: (at, _uuid, key) => [topic(at, Number(key), 'mode'), topic(at, Number(key), 'preset')],
    },
    {
      suffix: 'thermostats/+/target/set',
      run: (devices, uuid, key, text) => devices.use(THERMOSTATS).set(uuid, channelOf(key), { targetTemperature: targetOf(text) }),
      states: (at, _uuid, key) => [topic(at, Number(key), 'target'), topic(at, Number(key), 'preset')],
    },
  ],
};
