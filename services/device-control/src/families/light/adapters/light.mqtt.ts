import { AppError } from '@homeops/common/core';
import type { DiscoveryComponent } from '@homeops/common/mqtt';
import { channelOf } from '../../../adapters/mqtt/command-payloads.js';
import { channelNameOf, type CommandOperations, type MqttFamily, type MqttFamilyEntities } from '../../../adapters/mqtt/mqtt-family.js';
import type { DomainFamily, FamilyState } from '../../../domain/device-family.js';
import type { LightReading } from '../domain/light.types.js';
import { LIGHTS } from '../domain/lights.js';

/** A light's topics under a device's `<base>/devices/<slug>`. */
const lightState = (at: string, channel: number) => `${at}/lights/${channel}/state`;
const lightSet = (at: string, channel: number) => `${at}/lights/${channel}/set`;

/** Meross's colour temperature 1 (warm) … 100 (cold) spans about 2700 K … 6500 K. */
const WARM_K = 2700;
const COLD_K = 6500;
export const kelvinOf = (temperature: number) => Math.round(WARM_K + ((temperature - 1) * (COLD_K - WARM_K)) / 99);
export const temperatureOf = (kelvin: number) => Math.min(100, Math.max(1, Math.round(1 + ((kelvin - WARM_K) * 99) / (COLD_K - WARM_K))));

/** The colour modes a light has, as Home Assistant counts them (onoff and brightness only alone). */
export function colorModesOf(reading: Pick<LightReading, 'supports'>): string[] {
  const modes = [...(reading.supports.temperature ? ['color_temp'] : []), ...(reading.supports.rgb ? ['rgb'] : [])];
  if (modes.length > 0) return modes;
  return reading.supports.brightness ? ['brightness'] : ['onoff'];
}

/** Home Assistant's name of each mode a light shows. */
const HA_COLOR_MODE = { temperature: 'color_temp', rgb: 'rgb' } as const;

/** A JSON-schema light's state from the channel's on/off and the light's reading; its colour mode is the one it shows. */
export function lightStateOf(on: boolean | null, reading: LightReading | undefined): string {
  const state: Record<string, unknown> = { state: on ? 'ON' : 'OFF' };
  if (reading) {
    const modes = colorModesOf(reading);
    const shown = reading.mode ? HA_COLOR_MODE[reading.mode] : undefined;
    const colorMode = shown !== undefined && modes.includes(shown) ? shown : modes[0];
    state.color_mode = colorMode;
    if (reading.brightness !== null && reading.supports.brightness) state.brightness = reading.brightness;
    if (reading.temperature !== null && reading.supports.temperature) state.color_temp = kelvinOf(reading.temperature);
    if (reading.rgb !== null && reading.supports.rgb) state.color = { r: (reading.rgb >> 16) & 0xff, g: (reading.rgb >> 8) & 0xff, b: reading.rgb & 0xff };
  }
  return JSON.stringify(state);
}

/** What a light's on/off goes through: its channel's power, which another family owns (the registry names it). */
export interface ChannelPower extends FamilyState {
  set(uuid: string, channel: number, on: boolean): Promise<unknown>;
}

/** A JSON-schema light command: on/off through the channel, the rest through the light's change. */
async function runLight(devices: CommandOperations, power: DomainFamily<ChannelPower>, uuid: string, channel: number, text: string): Promise<void> {
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
    await devices.use(power).set(uuid, channel, false);
    return;
  }
  if (Object.keys(change).length > 0) await devices.use(LIGHTS).set(uuid, channel, change);
  if (body.state === 'ON') await devices.use(power).set(uuid, channel, true);
}

/**
 * Lights: a JSON-schema `light` per channel with the features the light has (from its last reading); its state joins
 * the channel's on/off with the reading, and its on/off goes through `power`. Read once at the start over the LAN.
 */
export const lightMqtt = (power: DomainFamily<ChannelPower>): MqttFamily => ({
  entities: ({ at, state }): MqttFamilyEntities => {
    const lights = new Map<string, Map<number, LightReading>>();
    const channelsOn = new Map<string, boolean>();
    const publish = (uuid: string, channel: number) => {
      const reading = lights.get(uuid)?.get(channel);
      if (!reading) return;
      state(lightState(at(uuid), channel), lightStateOf(channelsOn.get(`${uuid}/${channel}`) ?? null, reading));
    };
    const channelIs = (uuid: string, channel: number, on: boolean) => {
      channelsOn.set(`${uuid}/${channel}`, on);
      publish(uuid, channel);
    };
    return {
      components(device, deviceId, root) {
        const components: Record<string, DiscoveryComponent> = {};
        if (!device.capabilities.includes(LIGHTS.capability)) return components;
        for (const { channel, name } of device.channels) {
          // Until the first reading tells the features, everything the family can have is offered.
          const reading = lights.get(device.uuid)?.get(channel) ?? { supports: { brightness: true, temperature: true, rgb: true } };
          const modes = colorModesOf(reading);
          components[`light${channel}`] = {
            platform: 'light',
            uniqueId: `${deviceId}_light${channel}`,
            name: channelNameOf(device, channel, name),
            options: {
              schema: 'json',
              command_topic: lightSet(root, channel),
              state_topic: lightState(root, channel),
              supported_color_modes: modes,
              ...(reading.supports.brightness ? { brightness: true, brightness_scale: 100 } : {}),
              ...(modes.includes('color_temp') ? { color_temp_kelvin: true, min_kelvin: WARM_K, max_kelvin: COLD_K } : {}),
            },
          };
        }
        return components;
      },
      publishStates(device) {
        // A channel's on/off is part of its light's state; it is known once the channel told it.
        for (const { channel, on } of device.channels) if (on !== null) channelIs(device.uuid, channel, on);
      },
      onEvent(event) {
        if (event.type === 'channel') channelIs(event.uuid, event.channel, event.on);
        if (event.type !== 'light') return false;
        const { type: _type, uuid, name: _name, source: _source, ...reading } = event;
        const known = lights.get(uuid) ?? new Map<number, LightReading>();
        const before = JSON.stringify(known.get(reading.channel)?.supports);
        known.set(reading.channel, reading);
        lights.set(uuid, known);
        publish(uuid, reading.channel);
        // New features change the discovery.
        return before !== JSON.stringify(reading.supports);
      },
      readAtStart: (devices, device) => (device.capabilities.includes(LIGHTS.capability) ? devices.use(LIGHTS).read(device.uuid) : undefined),
    };
  },
  commands: [
    {
      suffix: 'lights/+/set',
      run: (devices, uuid, key, text) => runLight(devices, power, uuid, channelOf(key), text),
      states: (at, _uuid, key) => [lightState(at, Number(key))],
    },
  ],
});
