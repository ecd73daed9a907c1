import { record } from '../../../adapters/meross/meross-abilities.js';
import type { HubSubDeviceKind, HubSubDeviceReading, SmokeState } from '../domain/hub.types.js';

// The hub's safety sensors as meross_lan's traces and code show them (msh300hk with ms200 and gs559):
// Hub.Sensor.All carries `waterLeak: { latestWaterLeak }`, `smokeAlarm: { status, interConn }` or
// `doorWindow: { status }` beside `online`; each also has its own namespace, pushed with a list of `{ id, … }`.

/** GS559 status codes: 170 all clear, 23 a test, 24/25 heat/smoke, 26/27 the same muted, 17–22 its errors. */
const SMOKE_CODES: ReadonlyMap<number, SmokeState> = new Map([
  [170, 'clear'],
  [23, 'test'],
  [24, 'alarm'],
  [25, 'alarm'],
  [26, 'muted'],
  [27, 'muted'],
  ...[17, 18, 19, 20, 21, 22].map((code) => [code, 'fault'] as const),
]);

/** A GS559 status as a smoke state; a code the alarm never documented is a fault (it says something is wrong). */
export function smokeStateOf(status: unknown): SmokeState | null {
  if (typeof status !== 'number') return null;
  return SMOKE_CODES.get(status) ?? 'fault';
}

const leakOf = (value: unknown) => (value === 1 || value === true ? true : value === 0 || value === false ? false : null);
const openOf = (status: unknown) => (status === 1 ? true : status === 0 ? false : null);

/** What a Hub.Sensor.All entry is, and the safety reading it carries; undefined for a temperature sensor. */
export function safetyReadingOf(e: Record<string, unknown>): { kind: HubSubDeviceKind; model: string; change: Partial<HubSubDeviceReading> } | undefined {
  const leak = record(e.waterLeak);
  if (leak) return { kind: 'leak', model: 'ms400', change: { leak: leakOf(leak.latestWaterLeak) } };
  const smoke = record(e.smokeAlarm);
  if (smoke) return { kind: 'smoke', model: 'gs559', change: { smoke: smokeStateOf(smoke.status) } };
  const door = record(e.doorWindow);
  if (door) return { kind: 'contact', model: 'ms200', change: { open: openOf(door.status) } };
  return undefined;
}

/** The list key and the change of each safety namespace's pushed entries (and of Hub.Online, which any device sends). */
export const SENSOR_PUSHES: Readonly<Record<string, { key: string; read: (e: Record<string, unknown>) => Partial<HubSubDeviceReading> }>> = {
  'Appliance.Hub.Sensor.WaterLeak': { key: 'waterLeak', read: (e) => ({ leak: leakOf(e.latestWaterLeak) }) },
  'Appliance.Hub.Sensor.Smoke': { key: 'smokeAlarm', read: (e) => ({ smoke: smokeStateOf(e.status) }) },
  'Appliance.Hub.Sensor.DoorWindow': { key: 'doorWindow', read: (e) => ({ open: openOf(e.status) }) },
  'Appliance.Hub.Online': { key: 'online', read: (e) => (e.status === 1 || e.status === 2 ? { online: e.status === 1 } : {}) },
};
