import type { DailyEnergy } from './energy.types.js';

/** One entry of a Meross `System.All` time.timeRule: from `utcStart` (epoch s) the device's clock is UTC + `offsetSeconds`. */
export type TimeRule = readonly [utcStart: number, offsetSeconds: number, isDst: number];

/** The device's own clock, as its System.All reports it: `time: { timezone, timeRule }`. */
export interface DeviceClock {
  /** An IANA zone ('Europe/Berlin'); null or '' when the device was never given one (it keeps UTC then). */
  timezone: string | null;
  /** Offsets by the instant they start at, oldest first; empty when the device has none. */
  timeRule: readonly TimeRule[];
}

/** One day of a plug's ConsumptionX ring buffer: its date ('' when it has none), the last update (epoch s) and the Wh so far. */
export interface ConsumptionEntry {
  date: string;
  time: number;
  wh: number;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
/** A plug whose clock was never set (after a reset) dates its entries near 1970: no day of ours. */
const EARLIEST = '2000-01-01';

/**
 * The device's local date (YYYY-MM-DD) at an instant: the offset of the last timeRule started by then, else its IANA
 * zone, never the host's. Null when the device tells neither.
 */
export function deviceDateAt(epochSeconds: number, clock: DeviceClock): string | null {
  let offset: number | null = null;
  // Offsets west of UTC may come as seconds past midnight (-5 h as 68400), as Python's timedelta.seconds writes them.
  for (const [start, seconds] of clock.timeRule) if (start <= epochSeconds) offset = seconds > 50_400 ? seconds - 86_400 : seconds;
  if (offset !== null) return new Date((epochSeconds + offset) * 1000).toISOString().slice(0, 10);
  if (!clock.timezone) return null;
  try {
    // en-CA writes dates as YYYY-MM-DD.
    return new Intl.DateTimeFormat('en-CA', { timeZone: clock.timezone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(epochSeconds * 1000);
  } catch {
    return null;
  }
}

/**
 * A plug's ConsumptionX as energy per local day of the device, oldest first, in kWh (Wh / 1000). The firmware writes
 * each entry's date in its own calendar, and that date stands: its `time` may lie past that local midnight (a Dublin
 * mss310 stamps the 3rd's last update 00:55 IST on the 4th), so re-dating by it would move every day. An entry
 * without a date is dated by its last update in the device's clock, never the host's. Either way a day of 23 or 25
 * hours (a DST change) is one day. The ring buffer comes in any order and may hold a day twice after its clock was
 * reset: the latest update of a day stands for it, never a sum.
 */
export function deviceDays(entries: readonly ConsumptionEntry[], clock: DeviceClock | null): DailyEnergy[] {
  const latest = new Map<string, ConsumptionEntry>();
  for (const entry of entries) {
    const date = DAY.test(entry.date) ? entry.date : entry.time > 0 && clock ? deviceDateAt(entry.time, clock) : null;
    if (date === null || date < EARLIEST || !(entry.wh >= 0)) continue;
    const kept = latest.get(date);
    if (!kept || entry.time > kept.time) latest.set(date, entry);
  }
  return [...latest].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([date, entry]) => ({ date, kWh: entry.wh / 1000 }));
}
