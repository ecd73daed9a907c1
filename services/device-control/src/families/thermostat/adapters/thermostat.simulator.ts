import { AppError } from '@homeops/common';
import { onLan, type SimulatedDevice } from '../../../adapters/simulator/simulated-devices.js';
import type { SimulatorFamily } from '../../../adapters/simulator/simulator-family.js';
import type { ThermostatReading } from '../domain/thermostat.types.js';

declare module '../../../adapters/simulator/simulated-devices.js' {
  interface SimulatedHardware {
    /** Thermostat channels (an MTS200B following its schedule at first, its floor protection on and not tripped). */
    thermostats?: Map<number, ThermostatReading>;
  }
}

function thermostatsOf({ device, hardware }: SimulatedDevice): Map<number, ThermostatReading> {
  return (hardware.thermostats ??= new Map(
    device.capabilities.includes('thermostat')
      ? device.channels.map((c) => [
          c.channel,
          {
            channel: c.channel,
            on: true,
            mode: 'auto' as const,
            modes: ['heat', 'cool', 'economy', 'auto', 'manual'],
            currentTemperature: 20.5,
            targetTemperature: 21,
            heating: true,
            cooling: false,
            minTemperature: 5,
            maxTemperature: 35,
            windowOpen: false,
            overheat: { enabled: true, warning: 'ok' as const, threshold: 33.5, temperature: 22 },
            sensor: 'internal' as const,
          },
        ])
      : [],
  ));
}

const copy = (t: ThermostatReading): ThermostatReading => ({ ...t, modes: [...t.modes], overheat: t.overheat && { ...t.overheat } });

/** Simulated thermostats (mts200): like the real one, a target set while it follows its schedule puts it in manual. */
export const THERMOSTAT_SIMULATOR: SimulatorFamily = {
  capability: 'thermostat',
  demo: () => [
    {
      uuid: 'sim-thermostat-0001',
      name: 'Living Room Thermostat',
      type: 'mts200b',
      online: true,
      commandReady: true,
      channels: [{ channel: 0, name: 'Living Room Thermostat' }],
      firmware: '7.6.9',
      hardware: '7.0.0',
      link: onLan('192.0.2.31'),
    },
  ],
  port: (sim) => ({
    async readThermostats(uuid) {
      await sim.roundTrip();
      const thermostats = thermostatsOf(sim.reachable(uuid));
      sim.announceSent(uuid, 'thermostat read');
      return [...thermostats.values()].map(copy);
    },
    async setThermostat(uuid, channel, change) {
      await sim.roundTrip();
      const thermostats = thermostatsOf(sim.reachable(uuid));
      sim.announceSent(uuid, 'thermostat command');
      const t = thermostats.get(channel);
      if (!t) throw new AppError('CLOUD_ERROR', `Device ${uuid} answered ERROR: no thermostat channel ${channel}`);
      if (change.targetTemperature !== undefined && change.mode === undefined && t.mode === 'auto') t.mode = 'manual';
      Object.assign(t, change);
      t.heating = t.on && t.targetTemperature !== null && t.currentTemperature !== null && t.targetTemperature > t.currentTemperature;
      return copy(t);
    },
  }),
};
