import type { CloudDevice, DeviceLink } from '../../domain/device-cloud.js';

/** A device the simulated house reaches over its LAN (addresses from 192.0.2.0/24, a range kept for documentation). */
function onLan(address: string): DeviceLink {
  return { transport: 'lan', address, addressSource: 'learned', pushes: true, lanProblem: null };
}

/** The simulated hardware of the device families; each family adds its part (declaration merging), made on first use. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the families
export interface SimulatedHardware {}

/** A simulated device: its description, the state of each channel, and its families' hardware. */
export interface SimulatedDevice {
  device: CloudDevice;
  states: Map<number, boolean>;
  hardware: SimulatedHardware;
}

function simulated(device: Omit<CloudDevice, 'capabilities'> & { capabilities?: CloudDevice['capabilities'] }, initial: boolean[]): SimulatedDevice {
  const capabilities = device.capabilities ?? ['switch'];
  return { device: { ...device, capabilities }, states: new Map(device.channels.map((c, i) => [c.channel, initial[i] ?? false])), hardware: {} };
}

/**
 * The quick-start account: a plug, a four-channel strip with named outlets, a plug that is offline, a garage door,
 * blinds, a bulb, a hub; the door, the blinds and the bulb answer over the (simulated) LAN, the rest through the cloud.
 */
export function defaultSimulatedDevices(): SimulatedDevice[] {
  return [
    simulated(
      {
        uuid: 'sim-plug-0001',
        name: 'Desk Lamp',
        type: 'mss310',
        online: true,
        commandReady: true,
        switchable: true,
        capabilities: ['switch', 'energy'],
        channels: [{ channel: 0, name: 'Desk Lamp' }],
        firmware: '6.1.8',
        hardware: '6.0.0',
      },
      [false],
    ),
    simulated(
      {
        uuid: 'sim-strip-0001',
        name: 'Living Room Strip',
        type: 'mss425f',
        online: true,
        commandReady: true,
        switchable: true,
        channels: [
          { channel: 0, name: 'TV' },
          { channel: 1, name: 'Speakers' },
          { channel: 2, name: 'Floor Lamp' },
          { channel: 3, name: 'USB' },
        ],
        firmware: '4.2.3',
        hardware: '4.0.0',
      },
      [true, false, false, true],
    ),
    simulated(
      {
        uuid: 'sim-plug-0002',
        name: 'Garage Heater',
        type: 'mss110',
        online: false,
        commandReady: true,
        switchable: true,
        channels: [{ channel: 0, name: 'Garage Heater' }],
        firmware: '2.1.17',
        hardware: '2.0.0',
      },
      [false],
    ),
    simulated(
      {
        uuid: 'sim-garage-0001',
        name: 'Garage Door',
        type: 'msg100',
        online: true,
        commandReady: true,
        switchable: false,
        capabilities: ['garageDoor'],
        channels: [{ channel: 0, name: 'Garage Door' }],
        firmware: '3.2.7',
        hardware: '3.0.0',
        link: onLan('192.0.2.21'),
      },
      [],
    ),
    simulated(
      {
        uuid: 'sim-cover-0001',
        name: 'Bedroom Blinds',
        type: 'mrs100',
        online: true,
        commandReady: true,
        switchable: false,
        capabilities: ['cover'],
        coverPositioning: true,
        channels: [{ channel: 0, name: 'Bedroom Blinds' }],
        firmware: '6.6.6',
        hardware: '6.0.0',
        link: onLan('192.0.2.22'),
      },
      [],
    ),
    simulated(
      {
        uuid: 'sim-bulb-0001',
        name: 'Reading Light',
        type: 'msl430',
        online: true,
        commandReady: true,
        switchable: true,
        capabilities: ['switch', 'light'],
        channels: [{ channel: 0, name: 'Reading Light' }],
        firmware: '4.1.18',
        hardware: '4.0.0',
        link: onLan('192.0.2.23'),
      },
      [true],
    ),
    simulated(
      {
        uuid: 'sim-hub-0001',
        name: 'Heating Hub',
        type: 'msh300',
        online: true,
        commandReady: true,
        switchable: false,
        capabilities: ['hubSensors'],
        channels: [{ channel: 0, name: 'Heating Hub' }],
        firmware: '4.1.26',
        hardware: '4.0.0',
      },
      [],
    ),
  ];
}

/** `count` further single-channel plugs (benchmarks with many devices). */
export function extraSimulatedDevices(count: number): SimulatedDevice[] {
  return Array.from({ length: count }, (_, i) => {
    const n = String(i + 1).padStart(4, '0');
    return simulated(
      {
        uuid: `sim-extra-${n}`,
        name: `Plug ${n}`,
        type: 'mss110',
        online: true,
        commandReady: true,
        switchable: true,
        channels: [{ channel: 0, name: `Plug ${n}` }],
        firmware: '2.1.17',
        hardware: '2.0.0',
      },
      [i % 2 === 0],
    );
  });
}
