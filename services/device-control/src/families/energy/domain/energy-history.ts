import type { FamilyStateFile } from '../../../domain/device-family.js';
import type { DailyEnergy } from './energy.types.js';

/** One day as kept: the device's own figure (Wh) and what it had counted before it restarted its count that day. */
export interface KeptDay {
  date: string;
  wh: number;
  carriedWh: number;
}

/** A plug holds 16–31 days; a year is kept, so a month stays visible whatever the plug dropped. */
export const KEPT_DAYS = 400;

/**
 * Adds a reading to what was kept, by the device's dates. A day the plug still holds takes its figure (never added to
 * the kept one: no day counts twice); a day it dropped (its ring buffer wrapped) stays as kept. A figure below the kept
 * one for the same day means the plug restarted its count (a reset, a power cut): what it had counted is carried, so
 * no day shrinks or goes negative.
 */
export function mergeDays(kept: readonly KeptDay[], read: readonly DailyEnergy[]): KeptDay[] {
  const byDate = new Map(kept.map((d) => [d.date, d]));
  for (const day of read) {
    const wh = Math.round(day.kWh * 1000);
    const before = byDate.get(day.date);
    const carriedWh = before ? before.carriedWh + (wh < before.wh ? before.wh : 0) : 0;
    byDate.set(day.date, { date: day.date, wh, carriedWh });
  }
  return [...byDate.values()].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0)).slice(-KEPT_DAYS);
}

/** The kept days as the API gives them: kWh = Wh / 1000, oldest first. */
export function keptEnergy(days: readonly KeptDay[]): DailyEnergy[] {
  return days.map((d) => ({ date: d.date, kWh: (d.wh + d.carriedWh) / 1000 }));
}

/** The days read from every plug, kept in a state file (or only in memory without one); writes go one after another. */
export class EnergyHistory {
  private days: Promise<Map<string, KeptDay[]>> | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly file: FamilyStateFile | undefined) {}

  /** Merges a plug's reading into what was kept and returns the whole history of the plug. */
  async record(uuid: string, read: readonly DailyEnergy[]): Promise<DailyEnergy[]> {
    const all = await (this.days ??= this.load());
    const merged = mergeDays(all.get(uuid) ?? [], read);
    all.set(uuid, merged);
    const file = this.file;
    if (file) {
      const snapshot = { version: 1, devices: Object.fromEntries(all) };
      // A failed write loses nothing read now; the next reading writes again.
      this.writing = this.writing.then(() => file.write(snapshot)).catch(() => undefined);
      await this.writing;
    }
    return keptEnergy(merged);
  }

  private async load(): Promise<Map<string, KeptDay[]>> {
    const stored = (await this.file?.read()) as { version?: unknown; devices?: unknown } | undefined;
    const devices = stored?.version === 1 && typeof stored.devices === 'object' && stored.devices !== null ? stored.devices : {};
    return new Map(Object.entries(devices).map(([uuid, days]) => [uuid, Array.isArray(days) ? days.filter(isKeptDay) : []]));
  }
}

function isKeptDay(value: unknown): value is KeptDay {
  const d = value as Partial<KeptDay> | null;
  return typeof d?.date === 'string' && typeof d.wh === 'number' && d.wh >= 0 && typeof d.carriedWh === 'number' && d.carriedWh >= 0;
}
