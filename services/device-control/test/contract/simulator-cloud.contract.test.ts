import { ManualClock } from '@homeops/common';
import { extraSimulatedDevices } from '../../src/adapters/simulator/simulated-devices.js';
import { ADAPTER_FAMILIES } from '../../src/families/adapters.js';
import { SimulatorCloud } from '../../src/adapters/simulator/simulator-cloud.adapter.js';
import { describeDeviceCloudContract, ownWorld } from './device-cloud.contract.js';

const DOOR_TRAVEL_MS = 3_000;

// The quick-start account as it ships, on a clock the contract moves.
describeDeviceCloudContract('SimulatorCloud', {
  countsMessages: false,
  async create() {
    const clock = new ManualClock();
    const simulator = new SimulatorCloud({ clock, doorTravelMs: DOOR_TRAVEL_MS });
    return {
      cloud: simulator,
      devices: {
        plug: 'sim-plug-0001',
        strip: 'sim-strip-0001',
        garageDoor: 'sim-garage-0001',
        cover: 'sim-cover-0001',
        light: 'sim-bulb-0001',
        hub: 'sim-hub-0001',
      },
      world: ownWorld(simulator, {
        finishTravel: () => clock.advance(DOOR_TRAVEL_MS),
        addPlug: () => {
          const [plug] = extraSimulatedDevices(1, ADAPTER_FAMILIES);
          simulator.addDevice(plug!);
          return plug!.device.uuid;
        },
      }),
      stop: () => simulator.stop(),
    };
  },
});
