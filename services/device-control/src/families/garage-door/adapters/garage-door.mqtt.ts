import type { DiscoveryComponent } from '@homeops/common/mqtt';
import { channelOf, oneOf } from '../../../adapters/mqtt/command-payloads.js';
import { channelNameOf, type MqttFamily } from '../../../adapters/mqtt/mqtt-family.js';
import { GARAGE_DOORS } from '../domain/garage-doors.js';

/** A door's topics under a device's `<base>/devices/<slug>`. */
const doorState = (at: string, channel: number) => `${at}/doors/${channel}/state`;
const doorSet = (at: string, channel: number) => `${at}/doors/${channel}/set`;

/** Garage door openers: a `cover` per door (garage, open/close only); read once at the start over the LAN. */
export const GARAGE_DOOR_MQTT: MqttFamily = {
  entities: ({ at, state }) => ({
    components(device, deviceId, root) {
      const components: Record<string, DiscoveryComponent> = {};
      if (!device.capabilities.includes(GARAGE_DOORS.capability)) return components;
      for (const { channel, name } of device.channels) {
        components[`door${channel}`] = {
          platform: 'cover',
          uniqueId: `${deviceId}_door${channel}`,
          name: channelNameOf(device, channel, name),
          options: {
            device_class: 'garage',
            command_topic: doorSet(root, channel),
            state_topic: doorState(root, channel),
            payload_open: 'OPEN',
            payload_close: 'CLOSE',
            // An opener cannot stop a door half-way.
            payload_stop: null,
          },
        };
      }
      return components;
    },
    onEvent(event) {
      if (event.type === 'garageDoor') state(doorState(at(event.uuid), event.channel), event.state);
      return false;
    },
    readAtStart: (devices, device) => (device.capabilities.includes(GARAGE_DOORS.capability) ? devices.use(GARAGE_DOORS).read(device.uuid) : undefined),
  }),
  commands: [
    {
      suffix: 'doors/+/set',
      run: (devices, uuid, key, text) => devices.use(GARAGE_DOORS).set(uuid, channelOf(key), oneOf(text, ['OPEN', 'CLOSE']) === 'OPEN' ? 'open' : 'close'),
      states: (at, _uuid, key) => [doorState(at, Number(key))],
    },
  ],
};
