import { slugOf, type DiscoveryComponent, type DiscoveryDevice } from '@homeops/common/mqtt';
import type { DeviceView } from '../../domain/device.js';
import type { HubSubDeviceReading } from '../../families/hub/domain/hub.types.js';
import type { LightReading } from '../../families/light/domain/light.types.js';
import { familyComponents, familyTopics, type FamilyTopics } from './family-entities.js';
import { readingComponents, readingTopics, type ReadingTopics } from './reading-entities.js';

/** The topics of one device under `<base>/devices/<slug>/`; docs/home-assistant.md lists them. */
export interface DeviceTopics extends FamilyTopics, ReadingTopics {
  /** `online` or `offline` (offline while upgrading), retained. */
  availability: string;
  /** How messages reach the device now: `lan`, `cloud` or `unreachable` (retained). */
  transport: string;
  /** Why a command on one of the device's topics did nothing (JSON, not retained). */
  error: string;
  /** A channel's ON/OFF state (retained). */
  channelState: (channel: number) => string;
  /** ON or OFF here switches the channel (the switch's command topic). */
  channelSet: (channel: number) => string;
  /** `{"event_type":"press"}` when the channel changed on the device itself (a push), not retained. */
  channelPress: (channel: number) => string;
}

/** The topics of the device `uuid`. */
export function deviceTopics(baseTopic: string, uuid: string): DeviceTopics {
  const at = `${baseTopic}/devices/${slugOf(uuid)}`;
  return {
    ...familyTopics(at),
    ...readingTopics(at),
    availability: `${at}/availability`,
    error: `${at}/error`,
    transport: `${at}/transport`,
    channelState: (channel) => `${at}/channels/${channel}/state`,
    channelSet: (channel) => `${at}/channels/${channel}/set`,
    channelPress: (channel) => `${at}/channels/${channel}/press`,
  };
}

/** One Home Assistant device per Meross device, reached through the service device. */
export function deviceOf(
  device: DeviceView,
  deviceId: string,
  serviceId: string,
  topics: DeviceTopics,
  known: { lights: Map<number, LightReading>; hub: HubSubDeviceReading[] },
): DiscoveryDevice {
  // Every device has this one, whatever its family: a device needs at least one component.
  const components: Record<string, DiscoveryComponent> = {
    transport: {
      platform: 'sensor',
      uniqueId: `${deviceId}_transport`,
      name: 'Reached through',
      options: {
        state_topic: topics.transport,
        device_class: 'enum',
        options: ['lan', 'cloud', 'unreachable'],
        entity_category: 'diagnostic',
        icon: 'mdi:lan',
      },
    },
  };
  if (device.capabilities.includes('switch')) {
    const single = device.channels.length === 1;
    for (const { channel, name } of device.channels) {
      // A light's on/off is its light entity's.
      if (!device.capabilities.includes('light'))
        components[`ch${channel}`] = {
          platform: 'switch',
          uniqueId: `${deviceId}_ch${channel}`,
          name: single ? null : name || `Channel ${channel}`,
          options: { command_topic: topics.channelSet(channel), state_topic: topics.channelState(channel), payload_on: 'ON', payload_off: 'OFF' },
        };
      components[`ch${channel}_press`] = {
        platform: 'event',
        uniqueId: `${deviceId}_ch${channel}_press`,
        name: single ? 'Button' : `${name || `Channel ${channel}`} button`,
        options: { state_topic: topics.channelPress(channel), event_types: ['press'], device_class: 'button' },
      };
    }
  }
  Object.assign(components, familyComponents(device, deviceId, topics), readingComponents(device, deviceId, topics, known.lights, known.hub));
  return {
    id: deviceId,
    name: device.name,
    manufacturer: 'Meross',
    model: device.type,
    ...(device.firmware ? { swVersion: device.firmware } : {}),
    viaDevice: serviceId,
    availabilityTopic: topics.availability,
    components,
  };
}
