import type { EmulatedDeviceSpec } from './meross-emulator.js';

// One emulated device of each family, shared by the suites that run every family (the LAN, the families, the service).
export const PLUG = 'plug0000000000000000000000000001';
export const STRIP = 'strip000000000000000000000000002';
export const DOOR = 'door0000000000000000000000000005';
export const BLINDS = 'blinds00000000000000000000000006';
export const BULB = 'bulb0000000000000000000000000007';
export const HUB = 'hub00000000000000000000000000008';
/** Newer firmware: takes LAN messages only encrypted. */
export const SEALED = 'sealed000000000000000000000000009';
/** The valve behind the hub. */
export const VALVE = '01008C11';

/**
 * An energy plug, a garage door opener and a roller shutter (both declaring ToggleX too, never to be switched), a bulb
 * with colour and brightness but no colour temperature, and a hub with a valve and a sensor.
 */
export function familyDevices(): EmulatedDeviceSpec[] {
  return [
    { uuid: PLUG, name: 'Desk lamp', type: 'mss310' },
    { uuid: DOOR, name: 'Garage', type: 'msg100', garageDoor: true },
    { uuid: BLINDS, name: 'Blinds', type: 'mrs100', cover: true, firmware: '7.1.0' },
    { uuid: BULB, name: 'Bulb', type: 'msl430', lightCapacity: 5 },
    {
      uuid: HUB,
      name: 'Hub',
      type: 'msh300',
      protocol: 'none',
      hubDevices: [
        { id: VALVE, name: 'Bedroom valve', kind: 'valve' },
        { id: '120027D2', name: 'Cellar', kind: 'sensor' },
      ],
    },
  ];
}
