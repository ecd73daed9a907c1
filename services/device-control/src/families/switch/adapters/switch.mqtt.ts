import type { DiscoveryComponent } from '@homeops/common/mqtt';
import type { MqttFamily } from '../../../adapters/mqtt/mqtt-family.js';
import { channelNameOf } from '../../../adapters/mqtt/mqtt-family.js';
import { channelOf, oneOf } from '../../../adapters/mqtt/command-payloads.js';
import { channelTopics } from '../../../adapters/mqtt/device-entities.js';
import { SWITCHES } from '../domain/switches.js';

/** Switches: a `switch` per channel (a light's on/off is its light entity's) and a button event when it is pressed. */
export const SWITCH_MQTT: MqttFamily = {
  entities: ({ at, state, event: publishEvent }) => ({
    components(device, deviceId, root) {
      const components: Record<string, DiscoveryComponent> = {};
      if (!device.capabilities.includes('switch')) return components;
      const topics = channelTopics(root);
      for (const { channel, name } of device.channels) {
        if (!device.capabilities.includes('light'))
          components[`ch${channel}`] = {
            platform: 'switch',
            uniqueId: `${deviceId}_ch${channel}`,
            name: channelNameOf(device, channel, name),
            options: { command_topic: topics.channelSet(channel), state_topic: topics.channelState(channel), payload_on: 'ON', payload_off: 'OFF' },
          };
        components[`ch${channel}_press`] = {
          platform: 'event',
          uniqueId: `${deviceId}_ch${channel}_press`,
          name: device.channels.length === 1 ? 'Button' : `${name || `Channel ${channel}`} button`,
          options: { state_topic: topics.channelPress(channel), event_types: ['press'], device_class: 'button' },
        };
      }
      return components;
    },
    publishStates(device) {
      if (!device.capabilities.includes('switch')) return;
      for (const { channel, on } of device.channels) if (on !== null) state(channelTopics(at(device.uuid)).channelState(channel), on ? 'ON' : 'OFF');
    },
    onEvent(event) {
      if (event.type !== 'channel') return false;
      const topics = channelTopics(at(event.uuid));
      state(topics.channelState(event.channel), event.on ? 'ON' : 'OFF');
      if (event.source === 'push') publishEvent(topics.channelPress(event.channel), JSON.stringify({ event_type: 'press', on: event.on }));
      return false;
    },
  }),
  commands: [
    {
      suffix: 'channels/+/set',
      run: (devices, uuid, key, text) => devices.use(SWITCHES).set(uuid, channelOf(key), oneOf(text, ['ON', 'OFF']) === 'ON'),
      states: (at, _uuid, key) => [channelTopics(at).channelState(Number(key))],
    },
  ],
};
