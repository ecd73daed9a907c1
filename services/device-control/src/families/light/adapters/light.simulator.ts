import { AppError } from '@homeops/common';
import { onLan, type SimulatedDevice } from '../../../adapters/simulator/simulated-devices.js';
import type { SimulatorFamily } from '../../../adapters/simulator/simulator-family.js';
import type { LightReading } from '../domain/light.types.js';

declare module '../../../adapters/simulator/simulated-devices.js' {
  interface SimulatedHardware {
    /** Light settings per channel (a warm white at 80 % at first). */
    lights?: Map<number, LightReading>;
  }
}

function lightsOf({ device, hardware }: SimulatedDevice): Map<number, LightReading> {
  const supports = { brightness: true, temperature: true, rgb: true };
  return (hardware.lights ??= new Map(
    device.capabilities.includes('light')
      ? device.channels.map((c) => [c.channel, { channel: c.channel, brightness: 80, temperature: 40, rgb: 0xffb347, supports, mode: 'temperature' as const }])
      : [],
  ));
}

/** Simulated bulbs: brightness, white temperature and colour; like a real bulb, it shows what was set last. */
export const LIGHT_SIMULATOR: SimulatorFamily = {
  capability: 'light',
  demo: () => [
    {
      uuid: 'sim-bulb-0001',
      name: 'Reading Light',
      type: 'msl430',
      online: true,
      commandReady: true,
      channels: [{ channel: 0, name: 'Reading Light' }],
      on: [true],
      firmware: '4.1.18',
      hardware: '4.0.0',
      link: onLan('192.0.2.23'),
    },
  ],
  port: (sim) => ({
    async readLight(uuid) {
      await sim.roundTrip();
      const lights = lightsOf(sim.reachable(uuid));
      sim.announceSent(uuid, 'light read');
      return [...lights.values()].map((l) => ({ ...l, supports: { ...l.supports } }));
    },
    async setLight(uuid, channel, change) {
      await sim.roundTrip();
      const lights = lightsOf(sim.reachable(uuid));
      sim.announceSent(uuid, 'light command');
      const light = lights.get(channel);
      if (!light) throw new AppError('CLOUD_ERROR', `Device ${uuid} answered ERROR: no light channel ${channel}`);
      Object.assign(light, change);
      // A colour, or a white of some temperature.
      if (change.rgb !== undefined) light.mode = 'rgb';
      else if (change.temperature !== undefined) light.mode = 'temperature';
    },
  }),
};
