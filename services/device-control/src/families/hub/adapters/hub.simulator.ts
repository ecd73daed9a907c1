import { AppError } from '@homeops/common';
import type { SimulatedDevice } from '../../../adapters/simulator/simulated-devices.js';
import type { SimulatorFamily } from '../../../adapters/simulator/simulator-family.js';
import type { HubSubDeviceReading } from '../domain/hub.types.js';

declare module '../../../adapters/simulator/simulated-devices.js' {
  interface SimulatedHardware {
    /** The devices behind a hub. */
    subdevices?: HubSubDeviceReading[];
  }
}

/** A hub's devices at first: a valve and a sensor. */
function initialSubdevices(): HubSubDeviceReading[] {
  return [
    {
      id: '01008C11',
      name: 'Living room valve',
      kind: 'valve',
      model: 'mts100v3',
      online: true,
      battery: 85,
      temperature: 20.5,
      humidity: null,
      on: true,
      targetTemperature: 21,
      minTemperature: 5,
      maxTemperature: 35,
    },
    {
      id: '120027D2',
      name: 'Cellar sensor',
      kind: 'sensor',
      model: 'ms100',
      online: true,
      battery: 60,
      temperature: 13.2,
      humidity: 68.4,
      on: null,
      targetTemperature: null,
      minTemperature: null,
      maxTemperature: null,
    },
  ];
}

function subdevicesOf({ device, hardware }: SimulatedDevice): HubSubDeviceReading[] {
  return (hardware.subdevices ??= device.capabilities.includes('hubSensors') ? initialSubdevices() : []);
}

/** Simulated hubs: a valve and a sensor behind each; a valve takes commands. */
export const HUB_SIMULATOR: SimulatorFamily = {
  capability: 'hubSensors',
  demo: () => [
    {
      uuid: 'sim-hub-0001',
      name: 'Heating Hub',
      type: 'msh300',
      online: true,
      commandReady: true,
      channels: [{ channel: 0, name: 'Heating Hub' }],
      firmware: '4.1.26',
      hardware: '4.0.0',
    },
  ],
  port: (sim) => ({
    async readHub(uuid) {
      await sim.roundTrip();
      const subdevices = subdevicesOf(sim.reachable(uuid));
      for (const what of ['valves read', 'sensors read', 'batteries read']) sim.announceSent(uuid, what);
      return subdevices.map((d) => ({ ...d }));
    },
    async setValve(uuid, id, change) {
      await sim.roundTrip();
      const subdevices = subdevicesOf(sim.reachable(uuid));
      sim.announceSent(uuid, 'valve command');
      const valve = subdevices.find((d) => d.id === id && d.kind === 'valve');
      if (!valve) throw new AppError('CLOUD_ERROR', `Hub ${uuid} answered ERROR: no valve ${id}`);
      Object.assign(valve, change);
    },
  }),
};
