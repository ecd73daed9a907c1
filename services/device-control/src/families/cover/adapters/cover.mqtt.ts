import { AppError } from '@homeops/common/core';
import type { DiscoveryComponent } from '@homeops/common/mqtt';
import { channelOf, oneOf } from '../../../adapters/mqtt/command-payloads.js';
import { channelNameOf, type MqttFamily } from '../../../adapters/mqtt/mqtt-family.js';
import type { CoverMotion } from '../domain/cover.types.js';
import { COVERS } from '../domain/covers.js';

/** A cover's topics under a device's `<base>/devices/<slug>`. */
const coverState = (at: string, channel: number) => `${at}/covers/${channel}/state`;
const coverSet = (at: string, channel: number) => `${at}/covers/${channel}/set`;
const coverPosition = (at: string, channel: number) => `${at}/covers/${channel}/position`;
const coverPositionSet = (at: string, channel: number) => `${at}/covers/${channel}/position/set`;

/** A cover's state for Home Assistant: moving, else closed at 0 and open anywhere else. */
export function coverStateOf(position: number | null, motion: CoverMotion | null): string | undefined {
  if (motion === 'opening' || motion === 'closing') return motion;
  if (position === null) return undefined;
  return position === 0 ? 'closed' : 'open';
}

function positionOf(text: string): number {
  const position = Number(text.trim());
  if (text.trim() === '' || !Number.isInteger(position) || position < 0 || position > 100) {
    throw new AppError('VALIDATION_FAILED', 'A position must be an integer from 0 to 100', {
      details: [{ path: 'payload', message: 'must be an integer from 0 to 100' }],
    });
  }
  return position;
}

/** Covers (roller shutters): a `cover` per channel with its position; read once at the start over the LAN. */
export const COVER_MQTT: MqttFamily = {
  entities: ({ at, state }) => ({
    components(device, deviceId, root) {
      const components: Record<string, DiscoveryComponent> = {};
      if (!device.capabilities.includes(COVERS.capability)) return components;
      for (const { channel, name } of device.channels) {
        components[`cover${channel}`] = {
          platform: 'cover',
          uniqueId: `${deviceId}_cover${channel}`,
          name: channelNameOf(device, channel, name),
          options: {
            device_class: 'shutter',
            command_topic: coverSet(root, channel),
            state_topic: coverState(root, channel),
            position_topic: coverPosition(root, channel),
            ...(device.coverPositioning ? { set_position_topic: coverPositionSet(root, channel) } : {}),
            payload_open: 'OPEN',
            payload_close: 'CLOSE',
            payload_stop: 'STOP',
            position_open: 100,
            position_closed: 0,
          },
        };
      }
      return components;
    },
    onEvent(event) {
      if (event.type !== 'cover') return false;
      const shown = coverStateOf(event.position, event.motion);
      if (shown !== undefined) state(coverState(at(event.uuid), event.channel), shown);
      if (event.position !== null) state(coverPosition(at(event.uuid), event.channel), String(event.position));
      return false;
    },
    readAtStart: (devices, device) => (device.capabilities.includes(COVERS.capability) ? devices.use(COVERS).read(device.uuid) : undefined),
  }),
  commands: [
    {
      suffix: 'covers/+/set',
      run: (devices, uuid, key, text) => {
        const word = oneOf(text, ['OPEN', 'CLOSE', 'STOP']);
        return devices.use(COVERS).set(uuid, channelOf(key), word === 'OPEN' ? 'open' : word === 'CLOSE' ? 'close' : 'stop');
      },
      states: (at, _uuid, key) => [coverState(at, Number(key)), coverPosition(at, Number(key))],
    },
    {
      suffix: 'covers/+/position/set',
      run: (devices, uuid, key, text) => devices.use(COVERS).set(uuid, channelOf(key), { position: positionOf(text) }),
      states: (at, _uuid, key) => [coverState(at, Number(key)), coverPosition(at, Number(key))],
    },
  ],
};
