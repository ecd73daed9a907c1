import { cloudDevice, FakeDeviceCloud, garageDoorOpener, hub, rollerShutter, smartBulb } from '../fakes/fake-device-cloud.js';
import { describeDeviceCloudContract, ownWorld } from './device-cloud.contract.js';

const STRIP_OUTLETS = ['TV', 'Speakers', 'Lamp'].map((name, channel) => ({ channel, name }));

describeDeviceCloudContract('FakeDeviceCloud', {
  countsMessages: false,
  async create() {
    const fake = new FakeDeviceCloud([
      cloudDevice({ uuid: 'plug-1', name: 'Desk lamp' }),
      cloudDevice({ uuid: 'strip-1', name: 'Strip', type: 'mss425f', channels: STRIP_OUTLETS }),
      garageDoorOpener({ uuid: 'door-1' }),
      rollerShutter({ uuid: 'blinds-1' }),
      smartBulb({ uuid: 'bulb-1' }),
      hub({ uuid: 'hub-1' }),
    ]);
    return {
      cloud: fake,
      devices: { plug: 'plug-1', strip: 'strip-1', garageDoor: 'door-1', cover: 'blinds-1', light: 'bulb-1', hub: 'hub-1' },
      world: ownWorld(fake, {
        finishTravel: () => fake.completeDoorTravel(),
        addPlug: () => {
          fake.addDevice(cloudDevice({ uuid: 'added-1', name: 'Added plug' }));
          return 'added-1';
        },
      }),
      stop: () => fake.stop(),
    };
  },
});
