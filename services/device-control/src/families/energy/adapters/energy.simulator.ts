import { AppError } from '@homeops/common';
import type { SimulatorFamily } from '../../../adapters/simulator/simulator-family.js';
import { deviceDateAt } from '../domain/device-days.js';

/** Simulated energy meters: a lamp's draw and a week of daily energy. */
export const ENERGY_SIMULATOR: SimulatorFamily = {
  capability: 'energy',
  // The desk lamp's plug meters what it draws.
  joins: ['sim-plug-0001'],
  port: (sim) => ({
    /** A lamp's draw while on (60 W) or in standby (0.4 W) at 230 V, with a little noise. */
    async readPower(uuid) {
      await sim.roundTrip();
      const { states, device } = sim.reachable(uuid);
      sim.announceSent(uuid, 'power read');
      if (!device.capabilities.includes('energy')) throw new AppError('DEVICE_NOT_CONTROLLABLE', `Device ${uuid} measures no energy`);
      const voltage = Math.round((229 + Math.random() * 3) * 10) / 10;
      const power = states.get(0) ? Math.round((59 + Math.random() * 2) * 10) / 10 : 0.4;
      return { power, voltage, current: Math.round((power / voltage) * 1000) / 1000 };
    },
    /**
     * The last seven days, ending today by the plug's clock. A simulated plug stands in the home the service runs in,
     * so its clock keeps the host's zone (a real one keeps the zone its app gave it, whatever the host's).
     */
    async readDailyEnergy(uuid) {
      await sim.roundTrip();
      const { device } = sim.reachable(uuid);
      sim.announceSent(uuid, 'energy read');
      if (!device.capabilities.includes('energy')) throw new AppError('DEVICE_NOT_CONTROLLABLE', `Device ${uuid} measures no energy`);
      const today = deviceDateAt(Math.floor(sim.clock.now() / 1000), { timezone: Intl.DateTimeFormat().resolvedOptions().timeZone, timeRule: [] })!;
      // Days back by the calendar: a day of 23 or 25 hours is still one day.
      return Array.from({ length: 7 }, (_, i) => ({
        date: new Date(Date.parse(`${today}T00:00:00Z`) - (6 - i) * 86_400_000).toISOString().slice(0, 10),
        kWh: Math.round((0.3 + ((i * 37) % 10) / 10) * 100) / 100,
      }));
    },
  }),
};
