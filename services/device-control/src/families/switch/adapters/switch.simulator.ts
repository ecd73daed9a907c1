import { AppError } from '@homeops/common';
import type { SimulatorFamily } from '../../../adapters/simulator/simulator-family.js';

/** Simulated switches and plugs: a command switches the channel and is announced like the device's push. */
export const SWITCH_SIMULATOR: SimulatorFamily = {
  capability: 'switch',
  demo: () => [
    {
      uuid: 'sim-plug-0001',
      name: 'Desk Lamp',
      type: 'mss310',
      online: true,
      commandReady: true,
      channels: [{ channel: 0, name: 'Desk Lamp' }],
      on: [false],
      firmware: '6.1.8',
      hardware: '6.0.0',
    },
    {
      uuid: 'sim-strip-0001',
      name: 'Living Room Strip',
      type: 'mss425f',
      online: true,
      commandReady: true,
      channels: [
        { channel: 0, name: 'TV' },
        { channel: 1, name: 'Speakers' },
        { channel: 2, name: 'Floor Lamp' },
        { channel: 3, name: 'USB' },
      ],
      on: [true, false, false, true],
      firmware: '4.2.3',
      hardware: '4.0.0',
    },
    // Offline.
    {
      uuid: 'sim-plug-0002',
      name: 'Garage Heater',
      type: 'mss110',
      online: false,
      commandReady: true,
      channels: [{ channel: 0, name: 'Garage Heater' }],
      on: [false],
      firmware: '2.1.17',
      hardware: '2.0.0',
    },
  ],
  // The bulb switches too.
  joins: ['sim-bulb-0001'],
  fit(device, member) {
    device.switchable = member;
  },
  /** Single-channel plugs, every other one on. */
  bulk: (count) =>
    Array.from({ length: count }, (_, i) => {
      const n = String(i + 1).padStart(4, '0');
      return {
        uuid: `sim-extra-${n}`,
        name: `Plug ${n}`,
        type: 'mss110',
        online: true,
        commandReady: true,
        channels: [{ channel: 0, name: `Plug ${n}` }],
        on: [i % 2 === 0],
        firmware: '2.1.17',
        hardware: '2.0.0',
      };
    }),
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
