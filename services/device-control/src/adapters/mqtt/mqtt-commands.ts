import { AppError } from '@homeops/common/core';
import type { DeviceService } from '../../domain/device.service.js';
import type { DeviceTopics } from './device-entities.js';

/** The domain operations Home Assistant's commands call: the ones the HTTP routes call. */
export type CommandOperations = Pick<DeviceService, 'setChannel' | 'setGarageDoor' | 'moveCover'>;

/** One kind of command topic under `<base>/devices/<slug>/`: what it calls, and which states it may have left wrong. */
export interface MqttCommand {
  /** The topic under the device, with `+` for the channel. */
  suffix: string;
  run: (devices: CommandOperations, uuid: string, channel: number, text: string) => Promise<unknown>;
  /** Published again with their true values when the command is refused, so Home Assistant's entity snaps back. */
  states: (topics: DeviceTopics, channel: number) => string[];
}

function oneOf<T extends string>(text: string, allowed: readonly T[]): T {
  const word = text.trim().toUpperCase();
  if ((allowed as readonly string[]).includes(word)) return word as T;
  throw new AppError('VALIDATION_FAILED', `The command must be ${allowed.join(', ')}`, {
    details: [{ path: 'payload', message: `must be ${allowed.join(', ')}` }],
  });
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

/** Every command topic the bridge listens to. */
export const MQTT_COMMANDS: MqttCommand[] = [
  {
    suffix: 'channels/+/set',
    run: (devices, uuid, channel, text) => devices.setChannel(uuid, channel, oneOf(text, ['ON', 'OFF']) === 'ON'),
    states: (topics, channel) => [topics.channelState(channel)],
  },
  {
    suffix: 'doors/+/set',
    run: (devices, uuid, channel, text) => devices.setGarageDoor(uuid, channel, oneOf(text, ['OPEN', 'CLOSE']) === 'OPEN' ? 'open' : 'close'),
    states: (topics, channel) => [topics.doorState(channel)],
  },
  {
    suffix: 'covers/+/set',
    run: (devices, uuid, channel, text) => {
      const word = oneOf(text, ['OPEN', 'CLOSE', 'STOP']);
      return devices.moveCover(uuid, channel, word === 'OPEN' ? 'open' : word === 'CLOSE' ? 'close' : 'stop');
    },
    states: (topics, channel) => [topics.coverState(channel), topics.coverPosition(channel)],
  },
  {
    suffix: 'covers/+/position/set',
    run: (devices, uuid, channel, text) => devices.moveCover(uuid, channel, { position: positionOf(text) }),
    states: (topics, channel) => [topics.coverState(channel), topics.coverPosition(channel)],
  },
];
