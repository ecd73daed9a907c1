import type { EmulatedDeviceSpec, EmulatedSubDevice } from './emulated-device.js';

// The safety sensors behind an emulated hub, as meross_lan's msh300hk-ms200-gs559 trace shows them (its ids and
// payloads) and its MS400 parser reads them: what Hub.Sensor.All carries for each, their own namespaces, their pushes.

/** The safety sensor kinds an emulated hub takes beside valves and temperature sensors. */
export type SafetyKind = 'leak' | 'smoke' | 'contact';

/** The hub with a leak, a smoke and a door/window sensor (msh300hk, firmware 4.5.23 as in the trace). */
export const SAFETY_HUB = 'hubsafety00000000000000000000010';
export const DOOR_SENSOR = '160020100486';
export const SMOKE_ALARM = '28004811B776';
export const LEAK_SENSOR = '1A0025005B11';

/** The msh300hk of the trace with an ms200 and a gs559, and an ms400 beside them. */
export function safetyHub(): EmulatedDeviceSpec {
  return {
    uuid: SAFETY_HUB,
    name: 'Smart Hub',
    type: 'msh300hk',
    protocol: 'none',
    firmware: '4.5.23',
    hubDevices: [
      { id: DOOR_SENSOR, name: 'Front door', kind: 'contact' },
      { id: SMOKE_ALARM, name: 'Hallway smoke alarm', kind: 'smoke' },
      { id: LEAK_SENSOR, name: 'Laundry leak sensor', kind: 'leak' },
    ],
  };
}

/** The model the cloud's /v1/Hub/getSubDevices names for each kind. */
export const SUBDEVICE_TYPES: Record<EmulatedSubDevice['kind'], string> = {
  valve: 'mts100v3',
  sensor: 'ms100',
  leak: 'ms400',
  smoke: 'gs559',
  contact: 'ms200',
};

/** The namespaces a hub with safety sensors declares beside the valve and sensor ones (as the trace's abilities). */
export const SAFETY_ABILITIES = ['Appliance.Hub.Online', 'Appliance.Hub.Sensor.WaterLeak', 'Appliance.Hub.Sensor.Smoke', 'Appliance.Hub.Sensor.DoorWindow'];

const seconds = () => Math.floor(Date.now() / 1000);

/** Each safety namespace: its list key, and a sensor's entry in it (also what Hub.Sensor.All nests under that key). */
export const SAFETY_NAMESPACES: Record<SafetyKind, { namespace: string; key: string; state(d: EmulatedSubDevice): Record<string, unknown> }> = {
  leak: { namespace: 'Appliance.Hub.Sensor.WaterLeak', key: 'waterLeak', state: (d) => ({ latestWaterLeak: d.leak, latestSampleTime: seconds() }) },
  smoke: { namespace: 'Appliance.Hub.Sensor.Smoke', key: 'smokeAlarm', state: (d) => ({ status: d.smokeStatus, lmtime: seconds(), interConn: 0 }) },
  contact: { namespace: 'Appliance.Hub.Sensor.DoorWindow', key: 'doorWindow', state: (d) => ({ status: d.doorStatus, lmTime: seconds() }) },
};

export const isSafety = (d: EmulatedSubDevice): d is EmulatedSubDevice & { kind: SafetyKind } => d.kind in SAFETY_NAMESPACES;

/** A safety sensor's Hub.Sensor.All entry (beside `id` and `online`). */
export function safetyAllEntry(d: EmulatedSubDevice & { kind: SafetyKind }): Record<string, unknown> {
  const { key, state } = SAFETY_NAMESPACES[d.kind];
  return { [key]: state(d) };
}

/** The answer to GET of a safety namespace or Hub.Online, or undefined for another call. */
export function safetyAnswer(devices: EmulatedSubDevice[], call: string): Record<string, unknown> | undefined {
  if (call === 'GET Appliance.Hub.Online') {
    return { online: devices.map((d) => ({ id: d.id, status: d.online ? 1 : 2, lastActiveTime: seconds() })) };
  }
  for (const [kind, { namespace, key, state }] of Object.entries(SAFETY_NAMESPACES)) {
    if (call === `GET ${namespace}`) return { [key]: devices.filter((d) => d.kind === kind).map((d) => ({ id: d.id, ...state(d) })) };
  }
  return undefined;
}

/** What the hub pushes when a safety sensor's state changes: its namespace, with this sensor's entry. */
export function safetyPush(d: EmulatedSubDevice & { kind: SafetyKind }): { namespace: string; payload: Record<string, unknown> } {
  const { namespace, key, state } = SAFETY_NAMESPACES[d.kind];
  return { namespace, payload: { [key]: [{ id: d.id, ...state(d) }] } };
}
