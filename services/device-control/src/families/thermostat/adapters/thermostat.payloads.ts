import { channelOf, entries, record } from '../../../adapters/meross/meross-abilities.js';
import type { ThermostatChange, ThermostatMode, ThermostatOverheat, ThermostatReading } from '../domain/thermostat.types.js';

/** The two Meross thermostat protocols: Thermostat.Mode (mts200, tenths of °C) and Thermostat.ModeB (mts960, hundredths). */
export type ThermostatKind = 'mode' | 'modeB';

export const MODE = 'Appliance.Control.Thermostat.Mode';
export const MODE_B = 'Appliance.Control.Thermostat.ModeB';
export const SUMMER_MODE = 'Appliance.Control.Thermostat.SummerMode';
export const WINDOW_OPENED = 'Appliance.Control.Thermostat.WindowOpened';
export const CTL_RANGE = 'Appliance.Control.Thermostat.CtlRange';
export const OVERHEAT = 'Appliance.Control.Thermostat.Overheat';
export const SENSOR = 'Appliance.Control.Thermostat.Sensor';

/** Each protocol's namespace, the key of its payload's list and its scale (device units per °C). */
export const PROTOCOL = {
  mode: { namespace: MODE, key: 'mode', scale: 10 },
  modeB: { namespace: MODE_B, key: 'modeB', scale: 100 },
} as const;

/** An MTS200's mode codes, by index: 0 heat (comfort), 1 cool (night), 2 economy, 3 auto (its schedule), 4 manual. */
const MTS200_MODES: readonly ThermostatMode[] = ['heat', 'cool', 'economy', 'auto', 'manual'];
/** The preset each MTS200 mode regulates to, and the key that sets it; auto follows the schedule. */
const MTS200_TARGET_KEY: Partial<Record<ThermostatMode, string>> = { heat: 'heatTemp', cool: 'coolTemp', economy: 'ecoTemp', manual: 'manualTemp' };
const MTS200_SUMMER_COOL = 2;

/** An MTS960's modes: 1 heat or cool (by `working`: 1 heat, 2 cool), 2 its schedule, 3 timer (no target). */
const MTS960_MODES: readonly ThermostatMode[] = ['heat', 'cool', 'auto', 'timer'];
const MTS960_ON = 1;
const MTS960_OFF = 2;
const MTS960_ACTIVE = 1;
const MTS960_COOL = 2;

/** Where a device does not tell its range (an MTS960 without Thermostat.CtlRange), the usual one. */
export const DEFAULT_RANGE = { min: 5, max: 35 };

/** What the codec keeps of one thermostat channel: its last raw Mode/ModeB entry and the state beside it. */
export interface ThermostatRaw {
  entry: Record<string, unknown>;
  summerMode?: number;
  windowOpen?: boolean;
  range?: { min: number; max: number };
  /** The last Thermostat.Overheat entry, in device units; null where a read of it told nothing. */
  overheat?: Record<string, number> | null;
  /** Thermostat.Sensor's mode: 0 its own sensor, 1 the external one; null where a read of it told nothing. */
  sensor?: number | null;
}

/** Thermostat.Overheat's `warning`, by code (as meross_lan names them): 2 is an external sensor that does not answer. */
const OVERHEAT_WARNINGS: readonly ThermostatOverheat['warning'][] = ['ok', 'overheating', 'disconnected'];
const SENSOR_MODES = ['internal', 'external'] as const;

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** The entries of a Mode/ModeB payload (`{ mode: [...] }` / `{ modeB: [...] }`), by channel. */
export function modeEntries(kind: ThermostatKind, payload: unknown): Array<Record<string, unknown>> {
  return entries(record(payload)?.[PROTOCOL[kind].key]).filter((e) => Object.keys(e).some((k) => k !== 'channel'));
}

/** A thermostat channel as the service reads it, from what the codec kept of it (fields it cannot tell yet left out). */
export function readingOf(kind: ThermostatKind, channel: number, raw: ThermostatRaw): Partial<ThermostatReading> & { channel: number } {
  const e = raw.entry;
  const scale = PROTOCOL[kind].scale;
  const temp = (v: unknown) => (num(v) === undefined ? undefined : num(v)! / scale);
  const reading: Partial<ThermostatReading> & { channel: number } = { channel };
  const current = temp(e.currentTemp);
  if (current !== undefined) reading.currentTemperature = current;
  if (kind === 'mode') {
    if (e.onoff === 0 || e.onoff === 1) reading.on = e.onoff === 1;
    const mode = MTS200_MODES[num(e.mode) ?? -1];
    if (mode) reading.mode = mode;
    reading.modes = [...MTS200_MODES];
    const target = temp(e.targetTemp);
    if (target !== undefined) reading.targetTemperature = target;
    const [min, max] = [temp(e.min), temp(e.max)];
    if (min !== undefined && max !== undefined) Object.assign(reading, { minTemperature: min, maxTemperature: max });
    if (reading.on !== undefined && num(e.state) !== undefined) {
      const active = reading.on && e.state === 1;
      const cool = raw.summerMode === MTS200_SUMMER_COOL;
      Object.assign(reading, { heating: active && !cool, cooling: active && cool });
    }
  } else {
    if (e.onoff === MTS960_ON || e.onoff === MTS960_OFF) reading.on = e.onoff === MTS960_ON;
    const code = num(e.mode);
    const mode = code === 1 ? (e.working === MTS960_COOL ? 'cool' : 'heat') : code === 2 ? 'auto' : code === 3 ? 'timer' : undefined;
    if (mode) reading.mode = mode;
    reading.modes = [...MTS960_MODES];
    if (mode === 'timer') reading.targetTemperature = null;
    else if (temp(e.targetTemp) !== undefined) reading.targetTemperature = temp(e.targetTemp)!;
    // Its range is not in its entry: unknown until read (a push or a poll alone leaves the thermostat to a read).
    if (raw.range) Object.assign(reading, { minTemperature: raw.range.min, maxTemperature: raw.range.max });
    if (reading.on !== undefined && num(e.state) !== undefined) {
      const active = reading.on && e.state === MTS960_ACTIVE;
      Object.assign(reading, { heating: active && e.working !== MTS960_COOL, cooling: active && e.working === MTS960_COOL });
    }
  }
  if (raw.windowOpen !== undefined) reading.windowOpen = raw.windowOpen;
  if (raw.overheat !== undefined) reading.overheat = raw.overheat && overheatOf(raw.overheat, scale);
  if (raw.sensor !== undefined) reading.sensor = raw.sensor === null ? null : SENSOR_MODES[raw.sensor]!;
  return reading;
}

/** An Overheat entry in °C: `value` is the threshold, `currentTemp` the external sensor's (0 while it is disconnected). */
function overheatOf(e: Record<string, number>, scale: number): ThermostatOverheat {
  const warning = OVERHEAT_WARNINGS[e.warning!]!;
  const temperature = warning === 'disconnected' || num(e.currentTemp) === undefined ? null : e.currentTemp! / scale;
  return { enabled: e.onoff === 1, warning, threshold: e.value! / scale, temperature };
}

/**
 * The one entry of the SET list for a change: a target goes to the mode's own preset (an MTS200) or to heat/cool
 * (an MTS960); in a mode without a target of its own (auto, timer) it moves to manual (an MTS200) or to heat/cool
 * as the MTS960 was working, as the devices' apps do.
 */
export function setEntry(kind: ThermostatKind, channel: number, change: ThermostatChange, raw: ThermostatRaw | undefined): Record<string, unknown> {
  const entry: Record<string, unknown> = { channel };
  const current = raw ? readingOf(kind, channel, raw).mode : undefined;
  const scale = PROTOCOL[kind].scale;
  if (kind === 'mode') {
    if (change.on !== undefined) entry.onoff = change.on ? 1 : 0;
    let mode = change.mode;
    if (change.targetTemperature !== undefined) {
      mode ??= current;
      if (mode === undefined || MTS200_TARGET_KEY[mode] === undefined) mode = 'manual';
      entry.mode = MTS200_MODES.indexOf(mode);
      entry[MTS200_TARGET_KEY[mode]!] = Math.round(change.targetTemperature * scale);
    } else if (mode !== undefined) entry.mode = MTS200_MODES.indexOf(mode);
    return entry;
  }
  if (change.on !== undefined) entry.onoff = change.on ? MTS960_ON : MTS960_OFF;
  let mode = change.mode;
  if (change.targetTemperature !== undefined && mode !== 'heat' && mode !== 'cool') {
    mode = current === 'cool' || (current !== 'heat' && raw?.entry.working === MTS960_COOL) ? 'cool' : 'heat';
  }
  if (mode === 'heat' || mode === 'cool') Object.assign(entry, { mode: 1, working: mode === 'cool' ? MTS960_COOL : 1 });
  if (mode === 'auto') entry.mode = 2;
  if (mode === 'timer') entry.mode = 3;
  if (change.targetTemperature !== undefined) entry.targetTemp = Math.round(change.targetTemperature * scale);
  return entry;
}

/** What a SET made of the entry when the device's answer does not say: its fields over the last, the target of a new MTS200 mode. */
export function afterSet(kind: ThermostatKind, raw: ThermostatRaw | undefined, sent: Record<string, unknown>): Record<string, unknown> {
  const after = { ...raw?.entry, ...sent };
  if (kind === 'mode' && typeof sent.mode === 'number') {
    const key = MTS200_TARGET_KEY[MTS200_MODES[sent.mode]!];
    if (key && num(after[key]) !== undefined) after.targetTemp = after[key];
  }
  return after;
}

/** What a side namespace told of each channel (the Mode/ModeB entry aside). */
export interface SideState {
  channel: number;
  summerMode?: number;
  windowOpen?: boolean;
  overheat?: Record<string, number>;
  sensor?: number;
}

/**
 * Summer modes (`{ summerMode: [{ channel, mode }] }`), open windows (`{ windowOpened: [{ channel, status }] }`),
 * overheat protection (`{ overheat: [{ channel, onoff, value, warning, currentTemp, min, max }] }`) and the sensor
 * regulated on (`{ sensor: [{ channel, mode }] }`); an entry with a code meross_lan does not know is left out.
 */
export function sideStates(namespace: string, payload: unknown): SideState[] {
  const body = record(payload);
  if (namespace === SUMMER_MODE)
    return entries(body?.summerMode).flatMap((e) => (num(e.mode) === undefined ? [] : [{ channel: channelOf(e), summerMode: e.mode as number }]));
  if (namespace === WINDOW_OPENED)
    return entries(body?.windowOpened).flatMap((e) => (num(e.status) === undefined ? [] : [{ channel: channelOf(e), windowOpen: e.status === 1 }]));
  if (namespace === OVERHEAT)
    return entries(body?.overheat).flatMap((e) =>
      num(e.onoff) === undefined || num(e.value) === undefined || OVERHEAT_WARNINGS[num(e.warning) ?? -1] === undefined
        ? []
        : [{ channel: channelOf(e), overheat: numbersOf(e) }],
    );
  if (namespace === SENSOR)
    return entries(body?.sensor).flatMap((e) => (SENSOR_MODES[num(e.mode) ?? -1] === undefined ? [] : [{ channel: channelOf(e), sensor: e.mode as number }]));
  return [];
}

const numbersOf = (e: Record<string, unknown>) => Object.fromEntries(Object.entries(e).filter(([, v]) => num(v) !== undefined)) as Record<string, number>;

/** An MTS960's control range (`{ ctlRange: [{ channel, ctlMin, ctlMax }] }`), in °C. */
export function parseRanges(payload: unknown): Array<{ channel: number; min: number; max: number }> {
  return entries(record(payload)?.ctlRange).flatMap((e) =>
    num(e.ctlMin) !== undefined && num(e.ctlMax) !== undefined
      ? [{ channel: channelOf(e), min: (e.ctlMin as number) / 100, max: (e.ctlMax as number) / 100 }]
      : [],
  );
}
