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

/** An energy plug in New York whose ConsumptionX spans the start of DST (2026-03-08, a day of 23 hours). */
export const DST_PLUG = 'dstplug0000000000000000000000010';

/**
 * The DST plug: its clock as a New York plug reports it (EST -5 h, EDT -4 h from 2026-03-08 07:00 UTC), and its ring
 * buffer in the order it keeps it: the newest days first, then an old one the buffer kept. Each day's last update is
 * late in the evening or (today) just after midnight, where UTC, the host's zone or one fixed offset date it wrong.
 */
export function dstEnergyPlug(): EmulatedDeviceSpec {
  return {
    uuid: DST_PLUG,
    name: 'Heater',
    type: 'mss310',
    energyLog: {
      timezone: 'America/New_York',
      timeRule: [
        [1_762_063_200, -18_000, 0],
        [1_772_953_200, -14_400, 1],
        [1_793_512_800, -18_000, 0],
      ],
      consumptionx: [
        // 2026-03-08 23:30 EDT, the DST day; 2026-03-09 00:30 EDT.
        { date: '2026-03-08', time: 1_773_027_000, value: 1150 },
        { date: '2026-03-09', time: 1_773_030_600, value: 40 },
        // 2026-02-20 18:00 EST; 2026-03-06 and 2026-03-07 at 20:30 EST.
        { date: '2026-02-20', time: 1_771_628_400, value: 800 },
        { date: '2026-03-06', time: 1_772_847_000, value: 1200 },
        { date: '2026-03-07', time: 1_772_933_400, value: 900 },
      ],
    },
  };
}
