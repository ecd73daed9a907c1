import { AppError } from '@homeops/common';
import { entries, record } from '../../../adapters/meross/meross-abilities.js';
import { get, type MerossDeviceAccess, type MerossFamily } from '../../../adapters/meross/meross-family.js';
import type { DeviceEntry } from '../../../adapters/meross/meross-device-entry.js';
import { deviceDays, type DeviceClock, type TimeRule } from '../domain/device-days.js';
import type { DailyEnergy, PowerReading } from '../domain/energy.types.js';

const ELECTRICITY = 'Appliance.Control.Electricity';
const CONSUMPTION = 'Appliance.Control.ConsumptionX';
const SYSTEM_ALL = 'Appliance.System.All';

declare module '../../../adapters/meross/meross-device-entry.js' {
  interface FamilyMemory {
    /** The plug's clock (System.All's time zone and timeRule): its days are its own local dates. */
    energyClock?: DeviceClock;
  }
}

/** System.All's `time: { timezone, timeRule: [[utcStart, offsetSeconds, isDst], …] }`; null when it has none. */
export function parseDeviceClock(payload: unknown): DeviceClock | null {
  const time = record(record(record(record(payload)?.all)?.system)?.time);
  if (!time) return null;
  const rules = Array.isArray(time.timeRule) ? time.timeRule : [];
  const timeRule = rules
    .filter((r): r is TimeRule => Array.isArray(r) && r.length >= 2 && typeof r[0] === 'number' && typeof r[1] === 'number')
    .map((r): TimeRule => [r[0], r[1], typeof r[2] === 'number' ? r[2] : 0])
    .sort((a, b) => a[0] - b[0]);
  return { timezone: typeof time.timezone === 'string' && time.timezone ? time.timezone : null, timeRule };
}

/** Appliance.Control.Electricity (`{ electricity: { power: mW, voltage: dV, current: mA } }`) in W, V and A. */
export function parsePower(payload: unknown): PowerReading | null {
  const e = record(record(payload)?.electricity);
  if (!e || typeof e.power !== 'number' || typeof e.voltage !== 'number' || typeof e.current !== 'number') return null;
  return { power: e.power / 1000, voltage: e.voltage / 10, current: e.current / 1000 };
}

/**
 * Appliance.Control.ConsumptionX (`{ consumptionx: [{ date, time: epoch s, value: Wh }] }`, a ring buffer in any
 * order) per local day of the device in kWh, oldest first; `clock` dates an entry that carries no date.
 */
export function parseDailyEnergy(payload: unknown, clock: DeviceClock | null = null): DailyEnergy[] | null {
  const list = record(payload)?.consumptionx;
  if (!Array.isArray(list)) return null;
  const days = entries(list).flatMap((e) =>
    typeof e.value === 'number' ? [{ date: typeof e.date === 'string' ? e.date : '', time: typeof e.time === 'number' ? e.time : 0, wh: e.value }] : [],
  );
  return deviceDays(days, clock);
}

/** The plug's clock, read once (System.All) and kept; a plug that reports none dates its days itself. */
async function clockOf(entry: DeviceEntry, access: MerossDeviceAccess): Promise<DeviceClock | null> {
  if (entry.memory.energyClock) return entry.memory.energyClock;
  const clock = parseDeviceClock(await access.send(entry, `reading ${SYSTEM_ALL}`, get(SYSTEM_ALL)));
  if (clock) entry.memory.energyClock = clock;
  return clock;
}

/** Plugs that measure energy (mss310 family) over Meross: read when asked, never polled. */
export const ENERGY_MEROSS: MerossFamily = {
  capability: 'energy',
  declares: (abilities) => abilities.has(ELECTRICITY) || abilities.has(CONSUMPTION),
  types: { prefixes: ['mss310', 'mss315'], alone: false },
  // Any System.All a poll reads tells the clock too.
  poll: (entry, answers) => {
    const clock = parseDeviceClock(answers.get(SYSTEM_ALL));
    if (clock) entry.memory.energyClock = clock;
    return {};
  },
  port: (access) => ({
    async readPower(uuid) {
      const entry = access.reachable(uuid);
      await access.assertCapability(entry, 'energy', ELECTRICITY);
      const reading = parsePower(await access.send(entry, `reading ${ELECTRICITY}`, get(ELECTRICITY)));
      if (!reading) throw new AppError('CLOUD_ERROR', `Device ${uuid} sent an unreadable ${ELECTRICITY} answer`);
      return reading;
    },
    async readDailyEnergy(uuid) {
      const entry = access.reachable(uuid);
      await access.assertCapability(entry, 'energy', CONSUMPTION);
      const clock = await clockOf(entry, access);
      const days = parseDailyEnergy(await access.send(entry, `reading ${CONSUMPTION}`, get(CONSUMPTION)), clock);
      if (!days) throw new AppError('CLOUD_ERROR', `Device ${uuid} sent an unreadable ${CONSUMPTION} answer`);
      return days;
    },
  }),
};
