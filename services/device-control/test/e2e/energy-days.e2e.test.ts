import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DST_PLUG, dstEnergyPlug } from '../emulator/family-devices.js';
import { LanSetup } from './lan-setup.js';

let setup: LanSetup | undefined;
afterEach(async () => {
  await setup?.stop();
  setup = undefined;
});

const at = (iso: string) => Date.parse(iso) / 1000;

// The plug keeps New York's clock (its System.All time zone and timeRule); the service runs in Tokyo.
describe("energy by the device's own day (src/main.ts in another time zone than the plug)", { timeout: 90_000 }, () => {
  it('gives the plug local days with the DST day as one day, and keeps the days its buffer drops or a reset loses across a restart', async () => {
    setup = await LanSetup.create([dstEnergyPlug()], { TZ: 'Asia/Tokyo' });
    await setup.startService();
    await setup.allOnLan();

    const first = await setup.request('GET', `/devices/${DST_PLUG}/energy/daily`);
    await setup.stopService();
    // Meanwhile the ring buffer wrapped (2026-02-20 and 2026-03-06 dropped, 2026-03-10 came), and the plug restarted
    // its count on the 9th after a power cut (40 Wh counted before it, 25 Wh since, last at 21:00 EDT).
    setup.emulator.device(DST_PLUG).energyLog!.consumptionx = [
      { date: '2026-03-10', time: at('2026-03-11T01:00:00Z'), value: 700 },
      { date: '2026-03-07', time: at('2026-03-08T01:30:00Z'), value: 900 },
      { date: '2026-03-08', time: at('2026-03-09T03:30:00Z'), value: 1150 },
      { date: '2026-03-09', time: at('2026-03-10T01:00:00Z'), value: 25 },
    ];
    await setup.startService();
    await setup.allOnLan();
    const second = await setup.request('GET', `/devices/${DST_PLUG}/energy/daily`);

    expect(first.status).toBe(200);
    expect(first.body.days).toEqual([
      { date: '2026-02-20', kWh: 0.8 },
      { date: '2026-03-06', kWh: 1.2 },
      { date: '2026-03-07', kWh: 0.9 },
      { date: '2026-03-08', kWh: 1.15 },
      { date: '2026-03-09', kWh: 0.04 },
    ]);
    expect(second.status).toBe(200);
    expect(second.body.days).toEqual([
      { date: '2026-02-20', kWh: 0.8 },
      { date: '2026-03-06', kWh: 1.2 },
      { date: '2026-03-07', kWh: 0.9 },
      { date: '2026-03-08', kWh: 1.15 },
      { date: '2026-03-09', kWh: 0.065 },
      { date: '2026-03-10', kWh: 0.7 },
    ]);
    // Read over the LAN (the clock once per run, then the days), kept beside the other state of the service.
    expect(setup.emulator.requests('Appliance.Control.ConsumptionX')).toEqual([]);
    expect(setup.emulator.lanRequests('Appliance.Control.ConsumptionX')).toHaveLength(2);
    expect(existsSync(join(setup.workDir, 'data', 'energy-days.json'))).toBe(true);
  });
});
