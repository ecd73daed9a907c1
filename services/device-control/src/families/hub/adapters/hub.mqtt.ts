import { AppError } from '@homeops/common/core';
import { slugOf, type DiscoveryComponent } from '@homeops/common/mqtt';
import { oneOf } from '../../../adapters/mqtt/command-payloads.js';
import type { MqttFamily, MqttFamilyEntities } from '../../../adapters/mqtt/mqtt-family.js';
import type { HubSubDeviceReading } from '../domain/hub.types.js';
import { HUBS } from '../domain/hubs.js';

type HubValue = 'temperature' | 'humidity' | 'battery' | 'mode' | 'target' | SafetyValue;

/** What a safety sensor reports, its Home Assistant binary_sensor class, and when it is ON (a muted alarm still sees smoke). */
const SAFETY: Record<'leak' | 'smoke' | 'contact', { value: SafetyValue; deviceClass: string; on(sub: HubSubDeviceReading): boolean | null }> = {
  leak: { value: 'leak', deviceClass: 'moisture', on: (sub) => sub.leak },
  smoke: { value: 'smoke', deviceClass: 'smoke', on: (sub) => (sub.smoke === null ? null : sub.smoke === 'alarm' || sub.smoke === 'muted') },
  contact: { value: 'open', deviceClass: 'door', on: (sub) => sub.open },
};
type SafetyValue = 'leak' | 'smoke' | 'open';
const safetyOf = (sub: HubSubDeviceReading) => (sub.kind === 'leak' || sub.kind === 'smoke' || sub.kind === 'contact' ? SAFETY[sub.kind] : undefined);

/** A hub device's topics under the hub's `<base>/devices/<slug>`. */
const hubTopic = (at: string, id: string, what: HubValue) => `${at}/hub/${slugOf(id)}/${what}`;
const hubSet = (at: string, id: string, what: 'mode' | 'target') => `${at}/hub/${slugOf(id)}/${what}/set`;

/** The hub's entities, and its devices' ids by the slug their topics use. */
interface HubEntities extends MqttFamilyEntities {
  idOf(uuid: string, slug: string): string | undefined;
}

/** The states of a hub's devices, topic → payload (unknown readings left out). */
export function hubStatesOf(at: string, hub: HubSubDeviceReading[]): Array<[string, string]> {
  const states: Array<[string, string]> = [];
  for (const sub of hub) {
    if (sub.temperature !== null) states.push([hubTopic(at, sub.id, 'temperature'), String(sub.temperature)]);
    if (sub.humidity !== null) states.push([hubTopic(at, sub.id, 'humidity'), String(sub.humidity)]);
    if (sub.battery !== null) states.push([hubTopic(at, sub.id, 'battery'), String(sub.battery)]);
    if (sub.kind === 'valve' && sub.on !== null) states.push([hubTopic(at, sub.id, 'mode'), sub.on ? 'heat' : 'off']);
    if (sub.kind === 'valve' && sub.targetTemperature !== null) states.push([hubTopic(at, sub.id, 'target'), String(sub.targetTemperature)]);
    const safety = safetyOf(sub);
    const on = safety?.on(sub);
    if (safety && on !== null && on !== undefined) states.push([hubTopic(at, sub.id, safety.value), on ? 'ON' : 'OFF']);
  }
  return states;
}

/** A hub's valves and sensors (from its last reading) as Home Assistant components. */
function hubComponents(deviceId: string, at: string, hub: HubSubDeviceReading[]): Record<string, DiscoveryComponent> {
  const components: Record<string, DiscoveryComponent> = {};
  const sensor = (key: string, name: string, options: Record<string, unknown>) => {
    components[key] = { platform: 'sensor', uniqueId: `${deviceId}_${key}`, name, options };
  };
  for (const sub of hub) {
    const key = slugOf(sub.id);
    if (sub.kind === 'valve') {
      components[`${key}_valve`] = {
        platform: 'climate',
        uniqueId: `${deviceId}_${key}_valve`,
        name: sub.name,
        options: {
          modes: ['heat', 'off'],
          mode_state_topic: hubTopic(at, sub.id, 'mode'),
          mode_command_topic: hubSet(at, sub.id, 'mode'),
          temperature_state_topic: hubTopic(at, sub.id, 'target'),
          temperature_command_topic: hubSet(at, sub.id, 'target'),
          current_temperature_topic: hubTopic(at, sub.id, 'temperature'),
          min_temp: sub.minTemperature ?? 5,
          max_temp: sub.maxTemperature ?? 35,
          temp_step: 0.5,
          precision: 0.5,
          temperature_unit: 'C',
        },
      };
    } else if (safetyOf(sub)) {
      const { value, deviceClass } = safetyOf(sub)!;
      components[`${key}_${value}`] = {
        platform: 'binary_sensor',
        uniqueId: `${deviceId}_${key}_${value}`,
        name: sub.name,
        options: { state_topic: hubTopic(at, sub.id, value), device_class: deviceClass, payload_on: 'ON', payload_off: 'OFF' },
      };
    } else {
      sensor(`${key}_temperature`, `${sub.name} temperature`, {
        state_topic: hubTopic(at, sub.id, 'temperature'),
        device_class: 'temperature',
        unit_of_measurement: '°C',
        state_class: 'measurement',
      });
      if (sub.kind === 'sensor') {
        sensor(`${key}_humidity`, `${sub.name} humidity`, {
          state_topic: hubTopic(at, sub.id, 'humidity'),
          device_class: 'humidity',
          unit_of_measurement: '%',
          state_class: 'measurement',
        });
      }
    }
    sensor(`${key}_battery`, `${sub.name} battery`, {
      state_topic: hubTopic(at, sub.id, 'battery'),
      device_class: 'battery',
      unit_of_measurement: '%',
      state_class: 'measurement',
      entity_category: 'diagnostic',
    });
  }
  return components;
}

function hubIdOf(entities: HubEntities, uuid: string, key: string): string {
  const id = entities.idOf(uuid, key);
  if (id === undefined) throw new AppError('DEVICE_NOT_FOUND', `The hub has no device ${key} (yet: its first reading tells them)`);
  return id;
}

function numberOf(text: string): number {
  const value = Number(text.trim());
  if (text.trim() === '' || !Number.isFinite(value))
    throw new AppError('VALIDATION_FAILED', 'A temperature must be a number', { details: [{ path: 'payload', message: 'must be a number' }] });
  return value;
}

/**
 * Hubs: a `climate` per valve, sensors per sensor and valve, a `binary_sensor` per leak (moisture), smoke and
 * door/window sensor (from the hub's last reading: new devices change the discovery); valves and temperature sensors
 * push little, so they are read in the background.
 */
export const HUB_MQTT: MqttFamily<HubEntities> = {
  entities: ({ at, state }) => {
    const hubs = new Map<string, HubSubDeviceReading[]>();
    return {
      idOf: (uuid, slug) => hubs.get(uuid)?.find((d) => slugOf(d.id) === slug)?.id,
      components: (device, deviceId, root) => hubComponents(deviceId, root, hubs.get(device.uuid) ?? []),
      onEvent(event) {
        if (event.type !== 'hub') return false;
        const shape = (list: HubSubDeviceReading[]) => JSON.stringify(list.map((d) => [d.id, d.kind, d.name, d.minTemperature, d.maxTemperature]));
        const changed = shape(hubs.get(event.uuid) ?? []) !== shape(event.subdevices);
        hubs.set(event.uuid, event.subdevices);
        for (const [topic, payload] of hubStatesOf(at(event.uuid), event.subdevices)) state(topic, payload);
        return changed;
      },
    };
  },
  commands: [
    {
      suffix: 'hub/+/mode/set',
      run: (devices, uuid, key, text, hub) => devices.use(HUBS).setValve(uuid, hubIdOf(hub, uuid, key), { on: oneOf(text, ['HEAT', 'OFF']) === 'HEAT' }),
      states: (at, uuid, key, hub) => [hubTopic(at, hub.idOf(uuid, key) ?? key, 'mode')],
    },
    {
      suffix: 'hub/+/target/set',
      run: (devices, uuid, key, text, hub) => devices.use(HUBS).setValve(uuid, hubIdOf(hub, uuid, key), { targetTemperature: numberOf(text) }),
      states: (at, uuid, key, hub) => [hubTopic(at, hub.idOf(uuid, key) ?? key, 'target')],
    },
  ],
  budgetedRead: { capability: HUBS.capability, reads: [(devices, uuid) => devices.use(HUBS).read(uuid)] },
};
