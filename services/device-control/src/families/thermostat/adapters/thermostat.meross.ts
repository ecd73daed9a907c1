import { AppError } from '@homeops/common';
import { channelOf, record } from '../../../adapters/meross/meross-abilities.js';
import type { DeviceEntry } from '../../../adapters/meross/meross-device-entry.js';
import { get, set, type MerossDeviceAccess, type MerossFamily } from '../../../adapters/meross/meross-family.js';
import type { CloudEvent } from '../../../domain/device-cloud.js';
import {
  afterSet,
  CTL_RANGE,
  DEFAULT_RANGE,
  MODE,
  MODE_B,
  modeEntries,
  OVERHEAT,
  parseRanges,
  PROTOCOL,
  readingOf,
  SENSOR,
  setEntry,
  sideStates,
  type ThermostatKind,
  type ThermostatRaw,
} from './thermostat.payloads.js';

declare module '../../../adapters/meross/meross-device-entry.js' {
  interface FamilyMemory {
    /** Each thermostat channel's last Mode/ModeB entry, summer mode, window, range, overheat and sensor, as read, set or pushed. */
    thermostats?: Map<number, ThermostatRaw>;
  }
}

const rawOf = (entry: DeviceEntry, channel: number): ThermostatRaw => {
  const all = (entry.memory.thermostats ??= new Map());
  let raw = all.get(channel);
  if (!raw) all.set(channel, (raw = { entry: {} }));
  return raw;
};

/** Takes a Mode/ModeB payload's entries into what is kept; returns the channels they named. */
function learnModes(entry: DeviceEntry, kind: ThermostatKind, payload: unknown): number[] {
  return modeEntries(kind, payload).map((e) => {
    const raw = rawOf(entry, channelOf(e));
    raw.entry = { ...raw.entry, ...e };
    return channelOf(e);
  });
}

/**
 * A channel's reading with null for the overheat protection and sensor its abilities do not declare. One it declares
 * and has not told yet stays out, as do both while its abilities are unknown: the service then waits for a read.
 */
function readingFor(entry: DeviceEntry, kind: ThermostatKind, channel: number) {
  const reading = readingOf(kind, channel, rawOf(entry, channel));
  if (entry.abilities && !entry.abilities.has(OVERHEAT)) reading.overheat = null;
  if (entry.abilities && !entry.abilities.has(SENSOR)) reading.sensor = null;
  return reading;
}

const event = (entry: DeviceEntry, kind: ThermostatKind, channel: number): CloudEvent => ({
  type: 'thermostat',
  uuid: entry.def.uuid,
  source: 'push',
  ...readingFor(entry, kind, channel),
});

/** Which protocol the device speaks: from its abilities, else from what it already sent. */
function kindOf(entry: DeviceEntry): ThermostatKind {
  if (entry.abilities) return entry.abilities.has(MODE_B) ? 'modeB' : 'mode';
  return [...(entry.memory.thermostats?.values() ?? [])].some((r) => r.range) ? 'modeB' : 'mode';
}

/** A GET per protocol asks each channel by name (`[{ channel: 0 }]`): asked with `[]`, the devices answer an empty list. */
const channelsOf = (entry: DeviceEntry) => (entry.def.channels?.length ? entry.def.channels : [null]).map((_, channel) => ({ channel }));

/** A namespace's answer; null where the device declares it yet answers its GET with an ERROR (any other failure stands). */
async function optionalAnswer(access: MerossDeviceAccess, entry: DeviceEntry, namespace: string, payload: unknown): Promise<unknown> {
  try {
    return await access.send(entry, `reading ${namespace}`, get(namespace, payload));
  } catch (err) {
    if (err instanceof AppError && err.code === 'CLOUD_ERROR') return null;
    throw err;
  }
}

/** Overheat protection and the sensor, as declared: not in the System.All digest, so a read asks them (a message each). */
const SIDE_READS = [
  [OVERHEAT, 'overheat'],
  [SENSOR, 'sensor'],
] as const;

async function readThermostats(access: MerossDeviceAccess, uuid: string) {
  const entry = access.reachable(uuid);
  await access.assertCapability(entry, 'thermostat', `${MODE} or ${MODE_B}`);
  const abilities = await access.abilitiesOf(entry);
  const kind: ThermostatKind = abilities.has(MODE_B) ? 'modeB' : 'mode';
  const { namespace, key } = PROTOCOL[kind];
  const asked = channelsOf(entry);
  if (kind === 'modeB' && asked.some(({ channel }) => !entry.memory.thermostats?.get(channel)?.range)) {
    const ranges = abilities.has(CTL_RANGE) ? parseRanges(await optionalAnswer(access, entry, CTL_RANGE, { ctlRange: asked })) : [];
    for (const { channel } of asked) rawOf(entry, channel).range = ranges.find((r) => r.channel === channel) ?? DEFAULT_RANGE;
  }
  const channels = learnModes(entry, kind, await access.send(entry, `reading ${namespace}`, get(namespace, { [key]: asked })));
  if (channels.length === 0) throw new AppError('CLOUD_ERROR', `Device ${uuid} sent an unreadable ${namespace} answer`);
  for (const [side, sideKey] of SIDE_READS) {
    if (!abilities.has(side)) continue;
    const told = sideStates(side, await optionalAnswer(access, entry, side, { [sideKey]: asked }));
    // A declared namespace that answers ERROR or nothing readable shows null rather than keep the thermostat unread.
    for (const { channel } of asked) {
      const { channel: _channel, ...state } = told.find((t) => t.channel === channel) ?? { channel, [sideKey]: null };
      Object.assign(rawOf(entry, channel), state);
    }
  }
  return channels.map((channel) => readingFor(entry, kind, channel));
}

/** Thermostats (mts200, mts960) over Meross: Thermostat.Mode / ModeB read, set in one SET, pushed and polled. */
export const THERMOSTAT_MEROSS: MerossFamily = {
  capability: 'thermostat',
  declares: (abilities) => abilities.has(MODE) || abilities.has(MODE_B),
  types: { prefixes: ['mts200', 'mts960'], alone: true },
  push(entry, namespace, payload, access) {
    const kind = namespace === MODE ? 'mode' : namespace === MODE_B ? 'modeB' : null;
    const sides = kind ? [] : sideStates(namespace, payload);
    if (!kind && sides.length === 0) return false;
    access.setOnline(entry, true);
    const channels = kind ? learnModes(entry, kind, payload) : sides.map(({ channel, ...side }) => (Object.assign(rawOf(entry, channel), side), channel));
    for (const channel of channels) access.emit(event(entry, kind ?? kindOf(entry), channel));
    return true;
  },
  // Overheat protection and the sensor are not in the digest: a poll asks those the device declares.
  pollRequests: (entry) => {
    const { abilities } = entry;
    return abilities ? SIDE_READS.filter(([side]) => abilities.has(side)).map(([side, key]) => get(side, { [key]: channelsOf(entry) })) : [];
  },
  poll(entry, answers, changed) {
    const thermostat = record(record(record(record(answers.get('Appliance.System.All'))?.all)?.digest)?.thermostat);
    if (!thermostat) return {};
    for (const [side] of SIDE_READS) {
      if (answers.has(side)) for (const { channel, ...state } of sideStates(side, answers.get(side))) Object.assign(rawOf(entry, channel), state);
    }
    for (const [namespace, key] of [
      ['Appliance.Control.Thermostat.SummerMode', 'summerMode'],
      ['Appliance.Control.Thermostat.WindowOpened', 'windowOpened'],
    ] as const) {
      for (const { channel, ...side } of sideStates(namespace, { [key]: thermostat[key] })) Object.assign(rawOf(entry, channel), side);
    }
    const kind: ThermostatKind = thermostat.modeB !== undefined ? 'modeB' : 'mode';
    const events: CloudEvent[] = [];
    for (const channel of learnModes(entry, kind, thermostat)) {
      const told = event(entry, kind, channel);
      if (changed(`thermostat ${channel}`, told)) events.push(told);
    }
    return { events };
  },
  forget: (entry) => entry.memory.thermostats?.clear(),
  port: (access) => ({
    readThermostats: (uuid) => readThermostats(access, uuid),
    async setThermostat(uuid, channel, change) {
      const entry = access.reachable(uuid);
      await access.assertCapability(entry, 'thermostat', `${MODE} or ${MODE_B}`);
      const kind: ThermostatKind = (await access.abilitiesOf(entry)).has(MODE_B) ? 'modeB' : 'mode';
      const { namespace, key } = PROTOCOL[kind];
      const raw = entry.memory.thermostats?.get(channel);
      const sent = setEntry(kind, channel, change, raw);
      const answer = await access.send(entry, `setting ${namespace}`, set(namespace, { [key]: [sent] }));
      // The SETACK of an MTS200 carries the whole entry; where it carries none, the change is what is known.
      if (learnModes(entry, kind, answer).length === 0) rawOf(entry, channel).entry = afterSet(kind, raw, sent);
      return readingFor(entry, kind, channel);
    },
  }),
};
