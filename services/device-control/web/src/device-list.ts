import type { ChannelEvent, Cover, Device, GarageDoor, Light } from './types.js';
import type { Thermostat } from './thermostat-panel.js';

/** The list with one device replaced (added when new, removed when null). */
export function replaceDevice(list: Device[], uuid: string, device: Device | null): Device[] {
  const at = list.findIndex((d) => d.uuid === uuid);
  if (device === null) return at < 0 ? list : list.filter((d) => d.uuid !== uuid);
  if (at < 0) return [...list, device];
  return list.map((d, i) => (i === at ? device : d));
}

/** A channel's state as the device told it: a channel event, or the answer to a switch command. */
export type ChannelState = Pick<ChannelEvent, 'uuid' | 'channel' | 'on'>;

/** The list after a channel event: the device told us its state. */
export function applyChannel(list: Device[], event: ChannelState): Device[] {
  return list.map((d) => (d.uuid !== event.uuid ? d : { ...d, channels: d.channels.map((c) => (c.channel === event.channel ? { ...c, on: event.on } : c)) }));
}

/** The doors of an opener after a garageDoor event (a door not seen yet is added). */
export function applyDoor(doors: GarageDoor[] | undefined, channel: number, state: GarageDoor['state']): GarageDoor[] {
  const list = doors ?? [];
  return list.some((d) => d.channel === channel) ? list.map((d) => (d.channel === channel ? { ...d, state } : d)) : [...list, { channel, state }];
}

/** The channels of a cover after a cover event. */
export function applyCover(covers: Cover[] | undefined, told: Cover): Cover[] {
  const list = covers ?? [];
  return list.some((c) => c.channel === told.channel) ? list.map((c) => (c.channel === told.channel ? told : c)) : [...list, told];
}

/** The channels of a light after a light event (events carry the colour as a number). */
export function applyLight(lights: Light[] | undefined, told: Light): Light[] {
  const rgb = typeof told.rgb === 'number' ? `#${told.rgb.toString(16).padStart(6, '0')}` : told.rgb;
  const light = { ...told, rgb };
  const list = lights ?? [];
  return list.some((l) => l.channel === told.channel) ? list.map((l) => (l.channel === told.channel ? light : l)) : [...list, light];
}

/** The channels of a thermostat after a thermostat event. */
export function applyThermostat(list: Thermostat[] | undefined, told: Thermostat): Thermostat[] {
  const known = list ?? [];
  return known.some((t) => t.channel === told.channel) ? known.map((t) => (t.channel === told.channel ? told : t)) : [...known, told];
}
