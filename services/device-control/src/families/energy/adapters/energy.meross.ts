import { AppError } from '@homeops/common';
import { entries, record } from '../../../adapters/meross/meross-abilities.js';
import { get, type MerossFamily } from '../../../adapters/meross/meross-family.js';
import type { DailyEnergy, PowerReading } from '../domain/energy.types.js';

const ELECTRICITY = 'Appliance.Control.Electricity';
const CONSUMPTION = 'Appliance.Control.ConsumptionX';

/** Appliance.Control.Electricity (`{ electricity: { power: mW, voltage: dV, current: mA } }`) in W, V and A. */
export function parsePower(payload: unknown): PowerReading | null {
  const e = record(record(payload)?.electricity);
  if (!e || typeof e.power !== 'number' || typeof e.voltage !== 'number' || typeof e.current !== 'number') return null;
  return { power: e.power / 1000, voltage: e.voltage / 10, current: e.current / 1000 };
}

/** Appliance.Control.ConsumptionX (`{ consumptionx: [{ date, value: Wh }] }`) per day in kWh, oldest first. */
export function parseDailyEnergy(payload: unknown): DailyEnergy[] | null {
  const list = record(payload)?.consumptionx;
  if (!Array.isArray(list)) return null;
  return entries(list)
    .flatMap((e) =>
      typeof e.date === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(e.date) && typeof e.value === 'number' ? [{ date: e.date, kWh: e.value / 1000 }] : [],
    )
    .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
}

/** Plugs that measure energy (mss310 family) over Meross: read when asked, never polled. */
export const ENERGY_MEROSS: MerossFamily = {
  capability: 'energy',
  declares: (abilities) => abilities.has(ELECTRICITY) || abilities.has(CONSUMPTION),
  types: { prefixes: ['mss310', 'mss315'], alone: false },
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
      const days = parseDailyEnergy(await access.send(entry, `reading ${CONSUMPTION}`, get(CONSUMPTION)));
      if (!days) throw new AppError('CLOUD_ERROR', `Device ${uuid} sent an unreadable ${CONSUMPTION} answer`);
      return days;
    },
  }),
};
