import { AppError } from '@homeops/common';
import { channelOf, entries, record, type Abilities } from '../../../adapters/meross/meross-abilities.js';
import { get, set, type MerossFamily } from '../../../adapters/meross/meross-family.js';
import type { CloudEvent } from '../../../domain/device-cloud.js';
import type { LightChange, LightColorMode, LightFeatures } from '../domain/light.types.js';

const LIGHT = 'Appliance.Control.Light';

// Meross's light capacity bits.
const RGB = 1;
const TEMPERATURE = 2;
const LUMINANCE = 4;

/** What a light can change, from the capacity its Appliance.Control.Light ability declares. */
export function lightFeaturesOf(abilities: Abilities): LightFeatures {
  const capacity = record(abilities.get(LIGHT))?.capacity;
  if (typeof capacity !== 'number') return { brightness: true, temperature: false, rgb: false };
  return { brightness: (capacity & LUMINANCE) !== 0, temperature: (capacity & TEMPERATURE) !== 0, rgb: (capacity & RGB) !== 0 };
}

/** A light's settings from Appliance.System.All's digest or an Appliance.Control.Light push (`light: {...}`). */
export function parseLights(light: unknown): Array<{ channel: number; mode?: LightColorMode } & LightChange> {
  return entries(light).map((e) => {
    const reading: { channel: number; mode?: LightColorMode } & LightChange = { channel: channelOf(e) };
    // The capacity of a reading names the mode the light is in (RGB, else temperature); luminance alone says nothing of it.
    if (typeof e.capacity === 'number') {
      if (e.capacity & RGB) reading.mode = 'rgb';
      else if (e.capacity & TEMPERATURE) reading.mode = 'temperature';
    }
    if (typeof e.luminance === 'number') reading.brightness = e.luminance;
    if (typeof e.temperature === 'number') reading.temperature = e.temperature;
    if (typeof e.rgb === 'number') reading.rgb = e.rgb;
    return reading;
  });
}

/** The Appliance.Control.Light SET payload: the fields to change and the capacity bits that name them. */
export function lightCommand(channel: number, change: LightChange): Record<string, number> {
  const light: Record<string, number> = { channel, capacity: 0 };
  if (change.rgb !== undefined) Object.assign(light, { rgb: change.rgb, capacity: light.capacity! | RGB });
  if (change.temperature !== undefined) Object.assign(light, { temperature: change.temperature, capacity: light.capacity! | TEMPERATURE });
  if (change.brightness !== undefined) Object.assign(light, { luminance: change.brightness, capacity: light.capacity! | LUMINANCE });
  return light;
}

const digestLight = (all: unknown) => (all as { all?: { digest?: { light?: unknown } } } | null | undefined)?.all?.digest?.light;

/** Bulbs (msl) over Meross: Appliance.Control.Light, read from System.All's digest. */
export const LIGHT_MEROSS: MerossFamily = {
  capability: 'light',
  declares: (abilities) => abilities.has(LIGHT),
  types: { prefixes: ['msl'], alone: false },
  push(entry, namespace, payload, access) {
    if (namespace !== LIGHT) return false;
    for (const light of parseLights((payload as { light?: unknown } | null)?.light))
      access.emit({ type: 'light', uuid: entry.def.uuid, source: 'push', ...light });
    return true;
  },
  poll(entry, answers, changed) {
    const events: CloudEvent[] = [];
    for (const light of parseLights(digestLight(answers.get('Appliance.System.All')))) {
      if (changed(`light ${light.channel}`, light)) events.push({ type: 'light', uuid: entry.def.uuid, source: 'push', ...light });
    }
    return { events };
  },
  port: (access) => ({
    async readLight(uuid) {
      const entry = access.reachable(uuid);
      await access.assertCapability(entry, 'light', LIGHT);
      const supports = lightFeaturesOf(await access.abilitiesOf(entry));
      const lights = parseLights(digestLight(await access.send(entry, 'reading Appliance.System.All', get('Appliance.System.All'))));
      if (lights.length === 0) throw new AppError('CLOUD_ERROR', `Device ${uuid} reported no light in Appliance.System.All`);
      return lights.map((l) => ({
        channel: l.channel,
        brightness: l.brightness ?? null,
        temperature: l.temperature ?? null,
        rgb: l.rgb ?? null,
        supports,
        ...(l.mode ? { mode: l.mode } : {}),
      }));
    },
    async setLight(uuid, channel, change) {
      const entry = access.reachable(uuid);
      await access.assertCapability(entry, 'light', LIGHT);
      await access.send(entry, `setting ${LIGHT}`, set(LIGHT, { light: lightCommand(channel, change) }));
    },
  }),
};
