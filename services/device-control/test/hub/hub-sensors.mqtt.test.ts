import { haDiscoveryProblems } from '@homeops/test-kit';
import { buildDiscoveryMessage } from '@homeops/common/mqtt';
import { describe, expect, it } from 'vitest';
import type { DeviceView } from '../../src/domain/device.js';
import { HUB_MQTT } from '../../src/families/hub/adapters/hub.mqtt.js';
import type { HubSubDeviceReading } from '../../src/families/hub/domain/hub.types.js';
import { safetySensors } from '../fakes/fake-device-cloud.js';

const AT = 'homeops/devices/hub-1';

function entitiesWith(subdevices: HubSubDeviceReading[]) {
  const states: Array<[string, string]> = [];
  const entities = HUB_MQTT.entities({ at: () => AT, state: (topic, payload) => void states.push([topic, payload]), event: () => undefined });
  entities.onEvent!({ type: 'hub', uuid: 'hub-1', name: 'Hub', at: '2026-11-28T10:00:00.000Z', subdevices, source: 'push' });
  return { entities, states };
}

describe('hub safety sensors in Home Assistant', () => {
  it('announces a binary_sensor per sensor, with device classes moisture, smoke and door, and no temperature sensor', () => {
    const { entities } = entitiesWith(safetySensors());

    const components = entities.components!({ uuid: 'hub-1' } as DeviceView, 'homeops_hub_1', AT);

    expect(components).toMatchObject({
      leak_1_leak: { platform: 'binary_sensor', name: 'Laundry', options: { state_topic: `${AT}/hub/leak_1/leak`, device_class: 'moisture' } },
      smoke_1_smoke: { platform: 'binary_sensor', name: 'Hallway', options: { state_topic: `${AT}/hub/smoke_1/smoke`, device_class: 'smoke' } },
      door_1_open: { platform: 'binary_sensor', name: 'Front door', options: { state_topic: `${AT}/hub/door_1/open`, device_class: 'door' } },
    });
    expect(Object.keys(components).filter((k) => k.endsWith('_temperature'))).toEqual([]);
    const origin = { name: 'homeops', swVersion: '1', supportUrl: 'https://example.test' };
    const message = buildDiscoveryMessage('homeassistant', { id: 'homeops_hub_1', name: 'Hub', components }, origin, [`${AT}/availability`]);
    expect(haDiscoveryProblems(message.topic, message.payload)).toEqual([]);
  });

  it('publishes ON and OFF: a leak, smoke (also muted) and an open door are ON; a test, a fault and the all-clear OFF', () => {
    const [leak, smoke, door] = safetySensors();
    const cases: Array<[HubSubDeviceReading['smoke'], string]> = [
      ['alarm', 'ON'],
      ['muted', 'ON'],
      ['test', 'OFF'],
      ['fault', 'OFF'],
      ['clear', 'OFF'],
    ];
    for (const [state, payload] of cases) {
      const { states } = entitiesWith([{ ...smoke!, smoke: state }]);
      expect(states).toContainEqual([`${AT}/hub/smoke_1/smoke`, payload]);
    }
    const { states } = entitiesWith([
      { ...leak!, leak: true },
      { ...door!, open: false },
    ]);
    expect(states).toEqual(
      expect.arrayContaining([
        [`${AT}/hub/leak_1/leak`, 'ON'],
        [`${AT}/hub/door_1/open`, 'OFF'],
      ]),
    );
  });
});
