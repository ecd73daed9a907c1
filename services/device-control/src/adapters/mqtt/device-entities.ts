import { slugOf, type DiscoveryComponent, type DiscoveryDevice } from '@homeops/common/mqtt';
import type { DeviceView } from '../../domain/device.js';

/** The topics of a device's channels under its `<base>/devices/<slug>`. */
export function channelTopics(at: string) {
  return {
    /** A channel's ON/OFF state (retained). */
    channelState: (channel: number) => `${at}/channels/${channel}/state`,
    /** ON or OFF here turns the channel on or off (the command topic of its entity). */
    channelSet: (channel: number) => `${at}/channels/${channel}/set`,
    /** `{"event_type":"press"}` when the channel changed on the device itself (a push), not retained. */
    channelPress: (channel: number) => `${at}/channels/${channel}/press`,
  };
}

/** The topics of one device under `<base>/devices/<slug>/` every device has; docs/home-assistant.md lists them all. */
export interface DeviceTopics extends ReturnType<typeof channelTopics> {
  /** `<base>/devices/<slug>`: the families' topics are under it. */
  at: string;
  /** `online` or `offline` (offline while upgrading), retained. */
  availability: string;
  /** How messages reach the device now: `lan`, `cloud` or `unreachable` (retained). */
  transport: string;
  /** Why a command on one of the device's topics did nothing (JSON, not retained). */
  error: string;
}

/** The topics of the device `uuid`. */
export function deviceTopics(baseTopic: string, uuid: string): DeviceTopics {
  const at = `${baseTopic}/devices/${slugOf(uuid)}`;
  return { ...channelTopics(at), at, availability: `${at}/availability`, error: `${at}/error`, transport: `${at}/transport` };
}

/** One Home Assistant device per Meross device, reached through the service device, with its families' components. */
export function deviceOf(
  device: DeviceView,
  deviceId: string,
  serviceId: string,
  topics: DeviceTopics,
  families: ReadonlyArray<Record<string, DiscoveryComponent>>,
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
  Object.assign(components, ...families);
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
