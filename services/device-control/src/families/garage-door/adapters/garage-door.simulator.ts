import { AppError } from '@homeops/common';
import { onLan, type SimulatedDevice } from '../../../adapters/simulator/simulated-devices.js';
import type { SimulatorFamily } from '../../../adapters/simulator/simulator-family.js';

declare module '../../../adapters/simulator/simulated-devices.js' {
  interface SimulatedHardware {
    /** An opener's doors: open or not, per channel (all closed at first). */
    doors?: Map<number, boolean>;
  }
}

function doorsOf({ device, hardware }: SimulatedDevice): Map<number, boolean> {
  return (hardware.doors ??= new Map(device.capabilities.includes('garageDoor') ? device.channels.map((c) => [c.channel, false]) : []));
}

/** Simulated garage door openers: a command answers at once, the door arrives after the travel time and that is pushed. */
export const GARAGE_DOOR_SIMULATOR: SimulatorFamily = {
  capability: 'garageDoor',
  demo: () => [
    {
      uuid: 'sim-garage-0001',
      name: 'Garage Door',
      type: 'msg100',
      online: true,
      commandReady: true,
      channels: [{ channel: 0, name: 'Garage Door' }],
      firmware: '3.2.7',
      hardware: '3.0.0',
      link: onLan('192.0.2.21'),
    },
  ],
  port: (sim) => ({
    async readGarageDoors(uuid) {
      await sim.roundTrip();
      const doors = doorsOf(sim.reachable(uuid));
      sim.announceSent(uuid, 'garage door read');
      return [...doors].map(([channel, open]) => ({ channel, state: open ? 'open' : 'closed' }));
    },
    async setGarageDoor(uuid, channel, open) {
      await sim.roundTrip();
      const doors = doorsOf(sim.reachable(uuid));
      sim.announceSent(uuid, 'garage door command');
      if (!doors.has(channel)) throw new AppError('CLOUD_ERROR', `Device ${uuid} answered ERROR: no door ${channel}`);
      if (doors.get(channel) === open) return { channel, state: open ? 'open' : 'closed' };
      doors.set(channel, open);
      sim.later(() => sim.emit({ type: 'garageDoor', uuid, channel, state: open ? 'open' : 'closed', source: 'push' }), sim.travelMs);
      return { channel, state: open ? 'opening' : 'closing' };
    },
  }),
};
