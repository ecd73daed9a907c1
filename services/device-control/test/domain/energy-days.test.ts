import { afterEach, describe, expect, it } from 'vitest';
import type { FamilyStateFile } from '../../src/domain/device-family.js';
import { deviceDateAt, deviceDays, type DeviceClock } from '../../src/families/energy/domain/device-days.js';
import { EnergyHistory, mergeDays } from '../../src/families/energy/domain/energy-history.js';
import { parseDeviceClock } from '../../src/families/energy/adapters/energy.meross.js';

const at = (iso: string) => Date.parse(iso) / 1000;

// New York as a plug reports it: EST, then EDT from 2026-03-08 07:00 UTC (a day of 23 hours), EST again from 2026-11-01.
const NEW_YORK: DeviceClock = {
  timezone: 'America/New_York',
  timeRule: [
    [at('2025-11-02T06:00:00Z'), -18_000, 0],
    [at('2026-03-08T07:00:00Z'), -14_400, 1],
    [at('2026-11-01T06:00:00Z'), -18_000, 0],
  ],
};
// Sydney: AEDT +11 until 2026-04-05 03:00 local (16:00 UTC the day before), then AEST +10 (a day of 25 hours).
const SYDNEY: DeviceClock = {
  timezone: 'Australia/Sydney',
  timeRule: [
    [at('2025-10-04T16:00:00Z'), 39_600, 1],
    [at('2026-04-04T16:00:00Z'), 36_000, 0],
  ],
};

const hostZone = process.env.TZ;
afterEach(() => {
  if (hostZone === undefined) delete process.env.TZ;
  else process.env.TZ = hostZone;
});

describe("deviceDateAt: the device's local date at an instant", () => {
  it('takes the offset of the timeRule in force, on either side of a DST change, whatever the host zone', () => {
    for (const host of ['UTC', 'Asia/Tokyo', 'America/Los_Angeles']) {
      process.env.TZ = host;
      expect(deviceDateAt(at('2026-03-08T04:30:00Z'), NEW_YORK)).toBe('2026-03-07'); // 23:30 EST
      expect(deviceDateAt(at('2026-03-08T06:59:59Z'), NEW_YORK)).toBe('2026-03-08'); // 01:59:59 EST
      expect(deviceDateAt(at('2026-03-09T03:59:59Z'), NEW_YORK)).toBe('2026-03-08'); // 23:59:59 EDT
      expect(deviceDateAt(at('2026-03-09T04:00:00Z'), NEW_YORK)).toBe('2026-03-09'); // 00:00 EDT
      expect(deviceDateAt(at('2026-04-05T13:30:00Z'), SYDNEY)).toBe('2026-04-05'); // 23:30 AEST
      expect(deviceDateAt(at('2026-04-04T13:30:00Z'), SYDNEY)).toBe('2026-04-05'); // 00:30 AEDT
    }
  });

  it('reads an offset west of UTC written as seconds past midnight (68400 for -5 h)', () => {
    const clock: DeviceClock = { timezone: 'America/New_York', timeRule: [[0, 68_400, 0]] };

    expect(deviceDateAt(at('2026-01-10T03:00:00Z'), clock)).toBe('2026-01-09');
  });

  it('falls back to the IANA zone without a timeRule, and to nothing without either', () => {
    process.env.TZ = 'Pacific/Auckland';

    // Berlin falls back on 2026-10-25: 23:30 CET is 22:30 UTC.
    expect(deviceDateAt(at('2026-10-25T22:30:00Z'), { timezone: 'Europe/Berlin', timeRule: [] })).toBe('2026-10-25');
    expect(deviceDateAt(at('2026-10-25T23:30:00Z'), { timezone: 'Europe/Berlin', timeRule: [] })).toBe('2026-10-26');
    expect(deviceDateAt(at('2026-10-25T23:30:00Z'), { timezone: null, timeRule: [] })).toBeNull();
    expect(deviceDateAt(at('2026-10-25T23:30:00Z'), { timezone: 'Not/AZone', timeRule: [] })).toBeNull();
  });
});

describe('deviceDays: a ConsumptionX ring buffer as energy per device day', () => {
  it('keeps the date the plug wrote, though its last update lies past that local midnight (a Dublin mss310 trace)', () => {
    process.env.TZ = 'Asia/Tokyo';
    // meross_lan's trace of a Dublin plug in April 2024 (IST, +1 h): the 3rd's last update is 00:55 IST on the 4th.
    const dublin: DeviceClock = { timezone: 'Europe/Dublin', timeRule: [[1_711_846_800, 3600, 1]] };
    const entries = [
      { date: '2024-04-04', time: 1_712_275_145, wh: 589 },
      { date: '2024-04-03', time: 1_712_188_549, wh: 512 },
    ];

    expect(deviceDays(entries, dublin)).toEqual([
      { date: '2024-04-03', kWh: 0.512 },
      { date: '2024-04-04', kWh: 0.589 },
    ]);
  });

  it('dates an entry without a date by its last update in the device clock: the DST day is one day; kWh = Wh / 1000', () => {
    process.env.TZ = 'Asia/Tokyo';
    const entries = [
      { date: '', time: at('2026-03-09T03:30:00Z'), wh: 1150 },
      { date: '', time: at('2026-03-09T04:30:00Z'), wh: 40 },
      { date: '', time: at('2026-03-08T01:30:00Z'), wh: 900 },
    ];

    expect(deviceDays(entries, NEW_YORK)).toEqual([
      { date: '2026-03-07', kWh: 0.9 },
      { date: '2026-03-08', kWh: 1.15 },
      { date: '2026-03-09', kWh: 0.04 },
    ]);
    // One fixed offset (EST) would put 00:30 EDT of the 9th on the 8th: two entries, one day, and a day missing.
    expect(deviceDays(entries, { timezone: null, timeRule: [[0, -18_000, 0]] }).map((d) => d.date)).toEqual(['2026-03-07', '2026-03-08']);
  });

  it('drops days of an unset clock (1970), bad values, and entries neither dated nor datable', () => {
    const entries = [
      { date: '2026-03-07', time: at('2026-03-08T01:30:00Z'), wh: 900 },
      { date: '1970-01-01', time: 0, wh: 1 },
      { date: '2026-03-06', time: at('2026-03-07T01:30:00Z'), wh: -5 },
      { date: '', time: at('2026-03-05T01:30:00Z'), wh: 300 },
    ];

    expect(deviceDays(entries, null)).toEqual([{ date: '2026-03-07', kWh: 0.9 }]);
  });

  it('takes the latest update of a day the buffer holds twice, never their sum', () => {
    const entries = [
      { date: '2026-03-07', time: at('2026-03-07T20:00:00Z'), wh: 700 },
      { date: '2026-03-07', time: at('2026-03-08T01:30:00Z'), wh: 900 },
      { date: '2026-03-07', time: at('2026-03-07T10:00:00Z'), wh: 200 },
    ];

    expect(deviceDays(entries, NEW_YORK)).toEqual([{ date: '2026-03-07', kWh: 0.9 }]);
  });
});

describe('mergeDays and EnergyHistory: what was read, kept across restarts', () => {
  it('keeps the days a wrapped buffer dropped and takes the plug figure for the days it holds, never doubled', () => {
    const kept = mergeDays(
      [],
      [
        { date: '2026-02-20', kWh: 0.8 },
        { date: '2026-03-06', kWh: 1.2 },
      ],
    );
    const merged = mergeDays(kept, [
      { date: '2026-03-06', kWh: 1.2 },
      { date: '2026-03-07', kWh: 0.9 },
    ]);

    expect(merged).toEqual([
      { date: '2026-02-20', wh: 800, carriedWh: 0 },
      { date: '2026-03-06', wh: 1200, carriedWh: 0 },
      { date: '2026-03-07', wh: 900, carriedWh: 0 },
    ]);
  });

  it('carries what a plug had counted when it restarts its count mid-day: the day neither shrinks nor goes negative', () => {
    const before = mergeDays([], [{ date: '2026-03-09', kWh: 0.5 }]);
    const reset = mergeDays(before, [{ date: '2026-03-09', kWh: 0.1 }]);
    const later = mergeDays(reset, [{ date: '2026-03-09', kWh: 0.3 }]);

    expect(reset).toEqual([{ date: '2026-03-09', wh: 100, carriedWh: 500 }]);
    expect(later).toEqual([{ date: '2026-03-09', wh: 300, carriedWh: 500 }]);
  });

  it('gives the kept month after a restart, from the state file, per plug', async () => {
    const file = memoryFile();
    await new EnergyHistory(file).record('plug-a', [
      { date: '2026-02-20', kWh: 0.8 },
      { date: '2026-03-09', kWh: 0.5 },
    ]);
    await new EnergyHistory(file).record('plug-b', [{ date: '2026-03-09', kWh: 2 }]);

    const afterRestart = await new EnergyHistory(file).record('plug-a', [
      { date: '2026-03-09', kWh: 0.1 },
      { date: '2026-03-10', kWh: 0.25 },
    ]);

    expect(afterRestart).toEqual([
      { date: '2026-02-20', kWh: 0.8 },
      { date: '2026-03-09', kWh: 0.6 },
      { date: '2026-03-10', kWh: 0.25 },
    ]);
    expect(await new EnergyHistory(file).record('plug-b', [])).toEqual([{ date: '2026-03-09', kWh: 2 }]);
  });

  it('starts empty from a state file that is missing or not its own', async () => {
    const history = new EnergyHistory({ read: () => Promise.resolve({ version: 9, devices: { x: 1 } }), write: () => Promise.resolve() });

    expect(await history.record('plug-a', [{ date: '2026-03-09', kWh: 0.5 }])).toEqual([{ date: '2026-03-09', kWh: 0.5 }]);
  });
});

describe('parseDeviceClock (System.All time)', () => {
  it('reads the zone and the timeRule, ordered by start; none without a time block', () => {
    const payload = { all: { system: { time: { timestamp: 1, timezone: 'America/New_York', timeRule: [[20, -14_400, 1], [10, -18_000, 0], 'bad'] } } } };

    expect(parseDeviceClock(payload)).toEqual({
      timezone: 'America/New_York',
      timeRule: [
        [10, -18_000, 0],
        [20, -14_400, 1],
      ],
    });
    expect(parseDeviceClock({ all: { system: { time: { timezone: '', timeRule: [] } } } })).toEqual({ timezone: null, timeRule: [] });
    expect(parseDeviceClock({ all: { system: {} } })).toBeNull();
  });
});

function memoryFile(): FamilyStateFile {
  let stored: unknown;
  return {
    read: () => Promise.resolve(structuredClone(stored)),
    write: (value) => {
      stored = structuredClone(value);
      return Promise.resolve();
    },
  };
}
