import { AppError } from '@homeops/common';
import type { SimulatorFamily } from '../../../adapters/simulator/simulator-family.js';

/** Simulated switches and plugs: a command switches the channel and is announced like the device's push. */
export const SWITCH_SIMULATOR: SimulatorFamily = {
  capability: 'switch',
  port: (sim) => ({
    async readChannels(uuid) {
      await sim.roundTrip();
      const { states } = sim.reachable(uuid);
      sim.announceSent(uuid, 'state read');
      return [...states].map(([channel, on]) => ({ channel, on }));
    },
    async setChannel(uuid, channel, on) {
      await sim.roundTrip();
      const { states, device } = sim.reachable(uuid);
      if (!device.capabilities.includes('switch')) throw new AppError('DEVICE_NOT_CONTROLLABLE', `Device ${uuid} is not a switch`);
      sim.announceSent(uuid, 'switch command');
      if (!states.has(channel)) throw new AppError('CLOUD_ERROR', `Device ${uuid} answered ERROR: no channel ${channel}`);
      states.set(channel, on);
      sim.emit({ type: 'channel', uuid, channel, on, source: 'command' });
    },
  }),
};
