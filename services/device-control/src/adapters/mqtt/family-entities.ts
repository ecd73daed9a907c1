import type { DiscoveryComponent } from '@homeops/common/mqtt';
import type { CoverMotion } from '../../families/cover/domain/cover.types.js';
import type { DeviceView } from '../../domain/device.js';

/** The topics of the families beyond switches, under a device's `<base>/devices/<slug>`. */
export function familyTopics(at: string) {
  return {
    doorState: (channel: number) => `${at}/doors/${channel}/state`,
    doorSet: (channel: number) => `${at}/doors/${channel}/set`,
    coverState: (channel: number) => `${at}/covers/${channel}/state`,
    coverSet: (channel: number) => `${at}/covers/${channel}/set`,
    coverPosition: (channel: number) => `${at}/covers/${channel}/position`,
    coverPositionSet: (channel: number) => `${at}/covers/${channel}/position/set`,
  };
}

/** What familyTopics returns. */
export type FamilyTopics = ReturnType<typeof familyTopics>;

/** A cover's state for Home Assistant: moving, else closed at 0 and open anywhere else. */
export function coverStateOf(position: number | null, motion: CoverMotion | null): string | undefined {
  if (motion === 'opening' || motion === 'closing') return motion;
  if (position === null) return undefined;
  return position === 0 ? 'closed' : 'open';
}

/** The garage doors and covers of a device: a `cover` per door (garage, open/close only) and per cover channel. */
export function familyComponents(device: DeviceView, deviceId: string, topics: FamilyTopics): Record<string, DiscoveryComponent> {
  const components: Record<string, DiscoveryComponent> = {};
  const single = device.channels.length === 1;
  const nameOf = (channel: number, name: string) => (single ? null : name || `Channel ${channel}`);
  if (device.capabilities.includes('garageDoor')) {
    for (const { channel, name } of device.channels) {
      components[`door${channel}`] = {
        platform: 'cover',
        uniqueId: `${deviceId}_door${channel}`,
        name: nameOf(channel, name),
        options: {
          device_class: 'garage',
          command_topic: topics.doorSet(channel),
          state_topic: topics.doorState(channel),
          payload_open: 'OPEN',
          payload_close: 'CLOSE',
          // An opener cannot stop a door half-way.
          payload_stop: null,
        },
      };
    }
  }
  if (device.capabilities.includes('cover')) {
    for (const { channel, name } of device.channels) {
      components[`cover${channel}`] = {
        platform: 'cover',
        uniqueId: `${deviceId}_cover${channel}`,
        name: nameOf(channel, name),
        options: {
          device_class: 'shutter',
          command_topic: topics.coverSet(channel),
          state_topic: topics.coverState(channel),
          position_topic: topics.coverPosition(channel),
          ...(device.coverPositioning ? { set_position_topic: topics.coverPositionSet(channel) } : {}),
          payload_open: 'OPEN',
          payload_close: 'CLOSE',
          payload_stop: 'STOP',
          position_open: 100,
          position_closed: 0,
        },
      };
    }
  }
  return components;
}
