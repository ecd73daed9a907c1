import { AppError } from '@homeops/common';
import type { SimulatedDevice } from '../../../adapters/simulator/simulated-devices.js';
import type { SimulatorFamily } from '../../../adapters/simulator/simulator-family.js';
import { NO_HUB_READINGS, type HubSubDeviceReading } from '../domain/hub.types.js';

declare module '../../../adapters/simulator/simulated-devices.js' {
  interface SimulatedHardware {
    /** The devices behind a hub. */
    subdevices?: HubSubDeviceReading[];
  }
}

/** A hub's devices at first: a valve, a temperature sensor, and a leak, a smoke and a door/window sensor, all quiet. */
function initialSubdevices(): HubSubDeviceReading[] {
  const device = (id: string, name: string, kind: HubSubDeviceReading['kind'], model: string, battery: number) =>
    ({ ...NO_HUB_READINGS, id, name, kind, model, online: true, battery }) satisfies HubSubDeviceReading;
  return [
    {
      ...device('01008C11', 'Living room valve', 'valve', 'mts100v3', 85),
      temperature: 20.5,
      on: true,
      targetTemperature: 21,
      minTemperature: 5,
      maxTemperature: 35,
    },
    { ...device('120027D2', 'Cellar sensor', 'sensor', 'ms100', 60), temperature: 13.2, humidity: 68.4 },
    { ...device('0000E5F6', 'Laundry leak sensor', 'leak', 'ms400', 92), leak: false },
    { ...device('28004811B776', 'Hallway smoke alarm', 'smoke', 'gs559', 100), smoke: 'clear' },
    { ...device('160020100486', 'Front door', 'contact', 'ms200', 100), open: false },
  ];
}

function subdevicesOf({ device, hardware }: SimulatedDevice): HubSubDeviceReading[] {
  return (hardware.subdevices ??= device.capabilities.includes('hubSensors') ? initialSubdevices() : []);
}

/** Simulated hubs: a valve, a temperature sensor and three safety sensors behind each; a valve takes commands. */
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
