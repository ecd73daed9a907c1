import { slugOf, type DiscoveryComponent } from '@homeops/common/mqtt';
import type { HubSubDeviceReading } from '../../families/hub/domain/hub.types.js';
import type { LightReading } from '../../families/light/domain/light.types.js';
import type { DeviceView } from '../../domain/device.js';

/** The topics of lights, energy plugs and hubs under a device's `<base>/devices/<slug>`. */
export function readingTopics(at: string) {
  return {
    lightState: (channel: number) => `${at}/lights/${channel}/state`,
    lightSet: (channel: number) => `${at}/lights/${channel}/set`,
    energy: (what: 'power' | 'energy' | 'voltage' | 'current') => `${at}/energy/${what}`,
    hub: (id: string, what: 'temperature' | 'humidity' | 'battery' | 'mode' | 'target') => `${at}/hub/${slugOf(id)}/${what}`,
    hubSet: (id: string, what: 'mode' | 'target') => `${at}/hub/${slugOf(id)}/${what}/set`,
  };
}

/** What readingTopics returns. */
export type ReadingTopics = ReturnType<typeof readingTopics>;

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

/** Lights (JSON schema, the features the light has), energy sensors, and a hub's valves and sensors (from its last reading). */
export function readingComponents(
  device: DeviceView,
  deviceId: string,
  topics: ReadingTopics,
  lights: Map<number, LightReading>,
  hub: HubSubDeviceReading[],
): Record<string, DiscoveryComponent> {
  const components: Record<string, DiscoveryComponent> = {};
  const single = device.channels.length === 1;
  if (device.capabilities.includes('light')) {
    for (const { channel, name } of device.channels) {
      // Until the first reading tells the features, everything the family can have is offered.
      const reading = lights.get(channel) ?? { supports: { brightness: true, temperature: true, rgb: true } };
      const modes = colorModesOf(reading);
      components[`light${channel}`] = {
        platform: 'light',
        uniqueId: `${deviceId}_light${channel}`,
        name: single ? null : name || `Channel ${channel}`,
        options: {
          schema: 'json',
          command_topic: topics.lightSet(channel),
          state_topic: topics.lightState(channel),
          supported_color_modes: modes,
          ...(reading.supports.brightness ? { brightness: true, brightness_scale: 100 } : {}),
          ...(modes.includes('color_temp') ? { color_temp_kelvin: true, min_kelvin: WARM_K, max_kelvin: COLD_K } : {}),
        },
      };
    }
  }
  const sensor = (key: string, name: string, options: Record<string, unknown>) => {
    components[key] = { platform: 'sensor', uniqueId: `${deviceId}_${key}`, name, options };
  };
  if (device.capabilities.includes('energy')) {
    sensor('power', 'Power', { state_topic: topics.energy('power'), device_class: 'power', unit_of_measurement: 'W', state_class: 'measurement' });
    sensor('energy', 'Energy today', {
      state_topic: topics.energy('energy'),
      device_class: 'energy',
      unit_of_measurement: 'kWh',
      state_class: 'total_increasing',
    });
    sensor('voltage', 'Voltage', { state_topic: topics.energy('voltage'), device_class: 'voltage', unit_of_measurement: 'V', state_class: 'measurement' });
    sensor('current', 'Current', { state_topic: topics.energy('current'), device_class: 'current', unit_of_measurement: 'A', state_class: 'measurement' });
  }
  for (const sub of hub) {
    const key = slugOf(sub.id);
    if (sub.kind === 'valve') {
      components[`${key}_valve`] = {
        platform: 'climate',
        uniqueId: `${deviceId}_${key}_valve`,
        name: sub.name,
        options: {
          modes: ['heat', 'off'],
          mode_state_topic: topics.hub(sub.id, 'mode'),
          mode_command_topic: topics.hubSet(sub.id, 'mode'),
          temperature_state_topic: topics.hub(sub.id, 'target'),
          temperature_command_topic: topics.hubSet(sub.id, 'target'),
          current_temperature_topic: topics.hub(sub.id, 'temperature'),
          min_temp: sub.minTemperature ?? 5,
          max_temp: sub.maxTemperature ?? 35,
          temp_step: 0.5,
          precision: 0.5,
          temperature_unit: 'C',
        },
      };
    } else {
      sensor(`${key}_temperature`, `${sub.name} temperature`, {
        state_topic: topics.hub(sub.id, 'temperature'),
        device_class: 'temperature',
        unit_of_measurement: '°C',
        state_class: 'measurement',
      });
      if (sub.kind === 'sensor') {
        sensor(`${key}_humidity`, `${sub.name} humidity`, {
          state_topic: topics.hub(sub.id, 'humidity'),
          device_class: 'humidity',
          unit_of_measurement: '%',
          state_class: 'measurement',
        });
      }
    }
    sensor(`${key}_battery`, `${sub.name} battery`, {
      state_topic: topics.hub(sub.id, 'battery'),
      device_class: 'battery',
      unit_of_measurement: '%',
      state_class: 'measurement',
      entity_category: 'diagnostic',
    });
  }
  return components;
}

/** The states of a hub's devices, topic → payload (unknown readings left out). */
export function hubStatesOf(topics: ReadingTopics, hub: HubSubDeviceReading[]): Array<[string, string]> {
  const states: Array<[string, string]> = [];
  for (const sub of hub) {
    if (sub.temperature !== null) states.push([topics.hub(sub.id, 'temperature'), String(sub.temperature)]);
    if (sub.humidity !== null) states.push([topics.hub(sub.id, 'humidity'), String(sub.humidity)]);
    if (sub.battery !== null) states.push([topics.hub(sub.id, 'battery'), String(sub.battery)]);
    if (sub.kind === 'valve' && sub.on !== null) states.push([topics.hub(sub.id, 'mode'), sub.on ? 'heat' : 'off']);
    if (sub.kind === 'valve' && sub.targetTemperature !== null) states.push([topics.hub(sub.id, 'target'), String(sub.targetTemperature)]);
  }
  return states;
}
