import type { DiscoveryComponent } from '@homeops/common/mqtt';
import type { MqttFamily } from '../../../adapters/mqtt/mqtt-family.js';
import { ENERGY } from '../domain/energy.js';

/** An energy plug's topics under a device's `<base>/devices/<slug>`. */
const energyTopic = (at: string, what: 'power' | 'energy' | 'voltage' | 'current') => `${at}/energy/${what}`;

/** Energy plugs: power, energy today, voltage and current sensors; they push nothing, so they are read in the background. */
export const ENERGY_MQTT: MqttFamily = {
  entities: ({ at, state }) => ({
    components(device, deviceId, root) {
      const components: Record<string, DiscoveryComponent> = {};
      if (!device.capabilities.includes(ENERGY.capability)) return components;
      const sensor = (key: string, name: string, options: Record<string, unknown>) => {
        components[key] = { platform: 'sensor', uniqueId: `${deviceId}_${key}`, name, options };
      };
      sensor('power', 'Power', { state_topic: energyTopic(root, 'power'), device_class: 'power', unit_of_measurement: 'W', state_class: 'measurement' });
      sensor('energy', 'Energy today', {
        state_topic: energyTopic(root, 'energy'),
        device_class: 'energy',
        unit_of_measurement: 'kWh',
        state_class: 'total_increasing',
      });
      sensor('voltage', 'Voltage', {
        state_topic: energyTopic(root, 'voltage'),
        device_class: 'voltage',
        unit_of_measurement: 'V',
        state_class: 'measurement',
      });
      sensor('current', 'Current', {
        state_topic: energyTopic(root, 'current'),
        device_class: 'current',
        unit_of_measurement: 'A',
        state_class: 'measurement',
      });
      return components;
    },
    onEvent(event) {
      if (event.type === 'power') {
        state(energyTopic(at(event.uuid), 'power'), String(event.power));
        state(energyTopic(at(event.uuid), 'voltage'), String(event.voltage));
        state(energyTopic(at(event.uuid), 'current'), String(event.current));
      } else if (event.type === 'energy') {
        const today = event.days.at(-1);
        if (today) state(energyTopic(at(event.uuid), 'energy'), String(today.kWh));
      }
      return false;
    },
  }),
  budgetedRead: {
    capability: ENERGY.capability,
    reads: [(devices, uuid) => devices.use(ENERGY).readPower(uuid), (devices, uuid) => devices.use(ENERGY).readDaily(uuid)],
  },
};
