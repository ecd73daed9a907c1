import { AppError } from '@homeops/common/core';
import type { DeviceService } from '../../domain/device.service.js';
import { COVERS } from '../../families/cover/domain/covers.js';
import { GARAGE_DOORS } from '../../families/garage-door/domain/garage-doors.js';
import { HUBS } from '../../families/hub/domain/hubs.js';
import { LIGHTS } from '../../families/light/domain/lights.js';
import type { DeviceTopics } from './device-entities.js';
import { temperatureOf } from './reading-entities.js';

/** A hub's device ids by the slug its topics use. */
export type HubIds = (slug: string) => string | undefined;

function channelOf(key: string): number {
  const channel = Number(key);
  if (!Number.isInteger(channel) || channel < 0)
    throw new AppError('VALIDATION_FAILED', 'No such channel', { details: [{ path: 'topic', message: 'must name a channel' }] });
  return channel;
}

function hubIdOf(hub: HubIds, key: string): string {
  const id = hub(key);
  if (id === undefined) throw new AppError('DEVICE_NOT_FOUND', `The hub has no device ${key} (yet: its first reading tells them)`);
  return id;
}

function numberOf(text: string): number {
  const value = Number(text.trim());
  if (text.trim() === '' || !Number.isFinite(value))
    throw new AppError('VALIDATION_FAILED', 'A temperature must be a number', { details: [{ path: 'payload', message: 'must be a number' }] });
  return value;
}

/** A JSON-schema light command: on/off through the channel, the rest through setLight. */
async function runLight(devices: CommandOperations, uuid: string, channel: number, text: string): Promise<void> {
  let body: { state?: unknown; brightness?: unknown; color_temp?: unknown; color?: { r?: unknown; g?: unknown; b?: unknown } };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    throw new AppError('MALFORMED_JSON');
  }
  if (body === null || typeof body !== 'object') throw new AppError('MALFORMED_JSON');
  const change: { brightness?: number; temperature?: number; rgb?: number } = {};
  if (typeof body.brightness === 'number') change.brightness = Math.min(100, Math.max(1, Math.round(body.brightness)));
  if (typeof body.color_temp === 'number') change.temperature = temperatureOf(body.color_temp);
  const { r, g, b } = body.color ?? {};
  if (typeof r === 'number' && typeof g === 'number' && typeof b === 'number') change.rgb = ((r & 0xff) << 16) | ((g & 0xff) << 8) | (b & 0xff);
  if (body.state === 'OFF') {
    await devices.setChannel(uuid, channel, false);
    return;
  }
  if (Object.keys(change).length > 0) await devices.use(LIGHTS).set(uuid, channel, change);
  if (body.state === 'ON') await devices.setChannel(uuid, channel, true);
}

/** The domain operations Home Assistant's commands call: the ones the HTTP routes call. */
export type CommandOperations = Pick<DeviceService, 'setChannel' | 'use'>;

/** One kind of command topic under `<base>/devices/<slug>/`: what it calls, and which states it may have left wrong. */
export interface MqttCommand {
  /** The topic under the device, with `+` for the channel (or a hub device's id). */
  suffix: string;
  run: (devices: CommandOperations, uuid: string, key: string, text: string, hub: HubIds) => Promise<unknown>;
  /** Published again with their true values when the command is refused, so Home Assistant's entity snaps back. */
  states: (topics: DeviceTopics, key: string, hub: HubIds) => string[];
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
    run: (devices, uuid, key, text) => devices.setChannel(uuid, channelOf(key), oneOf(text, ['ON', 'OFF']) === 'ON'),
    states: (topics, key) => [topics.channelState(Number(key))],
  },
  {
    suffix: 'doors/+/set',
    run: (devices, uuid, key, text) => devices.use(GARAGE_DOORS).set(uuid, channelOf(key), oneOf(text, ['OPEN', 'CLOSE']) === 'OPEN' ? 'open' : 'close'),
    states: (topics, key) => [topics.doorState(Number(key))],
  },
  {
    suffix: 'covers/+/set',
    run: (devices, uuid, key, text) => {
      const word = oneOf(text, ['OPEN', 'CLOSE', 'STOP']);
      return devices.use(COVERS).set(uuid, channelOf(key), word === 'OPEN' ? 'open' : word === 'CLOSE' ? 'close' : 'stop');
    },
    states: (topics, key) => [topics.coverState(Number(key)), topics.coverPosition(Number(key))],
  },
  {
    suffix: 'covers/+/position/set',
    run: (devices, uuid, key, text) => devices.use(COVERS).set(uuid, channelOf(key), { position: positionOf(text) }),
    states: (topics, key) => [topics.coverState(Number(key)), topics.coverPosition(Number(key))],
  },
  {
    suffix: 'lights/+/set',
    run: (devices, uuid, key, text) => runLight(devices, uuid, channelOf(key), text),
    states: (topics, key) => [topics.lightState(Number(key))],
  },
  {
    suffix: 'hub/+/mode/set',
    run: (devices, uuid, key, text, hub) => devices.use(HUBS).setValve(uuid, hubIdOf(hub, key), { on: oneOf(text, ['HEAT', 'OFF']) === 'HEAT' }),
    states: (topics, key, hub) => [topics.hub(hub(key) ?? key, 'mode')],
  },
  {
    suffix: 'hub/+/target/set',
    run: (devices, uuid, key, text, hub) => devices.use(HUBS).setValve(uuid, hubIdOf(hub, key), { targetTemperature: numberOf(text) }),
    states: (topics, key, hub) => [topics.hub(hub(key) ?? key, 'target')],
  },
];
