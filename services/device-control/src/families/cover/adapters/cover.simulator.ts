import { AppError } from '@homeops/common';
import { onLan, type SimulatedDevice } from '../../../adapters/simulator/simulated-devices.js';
import type { SimulatorFamily } from '../../../adapters/simulator/simulator-family.js';

declare module '../../../adapters/simulator/simulated-devices.js' {
  interface SimulatedHardware {
    /** Cover position per channel (0 closed … 100 open; closed at first). */
    covers?: Map<number, number>;
  }
}

function coversOf({ device, hardware }: SimulatedDevice): Map<number, number> {
  return (hardware.covers ??= new Map(device.capabilities.includes('cover') ? device.channels.map((c) => [c.channel, 0]) : []));
}

/** Simulated blinds: a move is acknowledged at once, the cover arrives after its share of a full run and that is pushed. */
export const COVER_SIMULATOR: SimulatorFamily = {
  capability: 'cover',
  demo: () => [
    {
      uuid: 'sim-cover-0001',
      name: 'Bedroom Blinds',
      type: 'mrs100',
      online: true,
      commandReady: true,
      coverPositioning: true,
      channels: [{ channel: 0, name: 'Bedroom Blinds' }],
      firmware: '6.6.6',
      hardware: '6.0.0',
      link: onLan('192.0.2.22'),
    },
  ],
  port: (sim) => ({
    async readCovers(uuid) {
      await sim.roundTrip();
      const covers = coversOf(sim.reachable(uuid));
      sim.announceSent(uuid, 'cover position read');
      sim.announceSent(uuid, 'cover state read');
      return [...covers].map(([channel, position]) => ({ channel, position, motion: 'idle' }));
    },
    /** A stop (or a move to where it is) stays put and pushes that. */
    async moveCover(uuid, channel, target) {
      await sim.roundTrip();
      const covers = coversOf(sim.reachable(uuid));
      sim.announceSent(uuid, 'cover command');
      const from = covers.get(channel);
      if (from === undefined) throw new AppError('CLOUD_ERROR', `Device ${uuid} answered ERROR: no cover channel ${channel}`);
      if (target === 'stop' || target === from) {
        setImmediate(() => sim.emit({ type: 'cover', uuid, channel, position: from, motion: 'idle', source: 'push' }));
        return;
      }
      covers.set(channel, target);
      sim.later(
        () => sim.emit({ type: 'cover', uuid, channel, position: target, motion: 'idle', source: 'push' }),
        (sim.travelMs * Math.abs(target - from)) / 100,
      );
    },
  }),
};
