import { entries, record } from '../../../adapters/meross/meross-abilities.js';
import type { DeviceEntry } from '../../../adapters/meross/meross-device-entry.js';
import { get, set, type MerossFamily } from '../../../adapters/meross/meross-family.js';
import type { CloudEvent } from '../../../domain/device-cloud.js';
import { NO_HUB_READINGS, type HubSubDeviceReading } from '../domain/hub.types.js';
import { safetyReadingOf, SENSOR_PUSHES } from './hub-sensors.meross.js';

declare module '../../../adapters/meross/meross-device-entry.js' {
  interface FamilyMemory {
    /** A hub's valves: the mode each is in, as last read or pushed (a target change sets the custom mode only when needed). */
    valveModes?: Map<string, number>;
  }
}

const tenths = (value: unknown) => (typeof value === 'number' ? value / 10 : null);
const onlineOf = (e: Record<string, unknown>) => record(e.online)?.status === 1;

/**
 * What a hub pushes about the devices behind it: a valve turned on or off at the valve (Hub.ToggleX), its temperatures
 * (Hub.Mts100.Temperature), a sensor's reading (Hub.Sensor.TempHum or .All), a battery (Hub.Battery), a leak, smoke
 * or door sensor (Hub.Sensor.WaterLeak, .Smoke, .DoorWindow), a device going on- or offline (Hub.Online).
 */
export function parseHubPush(namespace: string, payload: unknown): Array<{ id: string; change: Partial<HubSubDeviceReading> }> {
  const body = record(payload);
  const each = (key: string, read: (e: Record<string, unknown>) => Partial<HubSubDeviceReading>) =>
    entries(body?.[key]).flatMap((e) => (typeof e.id === 'string' ? [{ id: e.id, change: read(e) }] : []));
  const defined = (change: Partial<HubSubDeviceReading>) =>
    Object.fromEntries(Object.entries(change).filter(([, v]) => v !== null && v !== undefined)) as Partial<HubSubDeviceReading>;
  switch (namespace) {
    case 'Appliance.Hub.ToggleX':
      return each('togglex', (e) => (e.onoff === 0 || e.onoff === 1 ? { on: e.onoff === 1 } : {}));
    case 'Appliance.Hub.Mts100.Temperature':
      return each('temperature', (e) => defined({ temperature: tenths(e.room), targetTemperature: tenths(e.currentSet) }));
    case 'Appliance.Hub.Sensor.TempHum':
      return each('tempHum', (e) => defined({ temperature: tenths(e.latestTemperature), humidity: tenths(e.latestHumidity) }));
    case 'Appliance.Hub.Sensor.All':
      return each('all', (e) =>
        defined({
          temperature: tenths(record(e.temperature)?.latest),
          humidity: tenths(record(e.humidity)?.latest),
          ...safetyReadingOf(e)?.change,
        }),
      );
    case 'Appliance.Hub.Battery':
      return each('battery', (e) => (typeof e.value === 'number' ? { battery: e.value } : {}));
    default: {
      const sensor = SENSOR_PUSHES[namespace];
      return sensor ? each(sensor.key, (e) => defined(sensor.read(e))) : [];
    }
  }
}

/** The mode a valve heats to its own (custom) target in; the app sets it with every target change. */
export const VALVE_CUSTOM_MODE = 0;

/**
 * Valves' modes (0 custom, 1 comfort, 2 economy, 3 schedule, …) from a Hub.Mts100.All answer or push
 * (`all: [{ id, mode: { state } }]`) or a Hub.Mts100.Mode push (`mode: [{ id, state }]`).
 */
export function parseValveModes(namespace: string, payload: unknown): Map<string, number> {
  const body = record(payload);
  const modes = new Map<string, number>();
  if (namespace === 'Appliance.Hub.Mts100.All') {
    for (const v of entries(body?.all)) {
      const state = record(v.mode)?.state;
      if (typeof v.id === 'string' && typeof state === 'number') modes.set(v.id, state);
    }
  } else if (namespace === 'Appliance.Hub.Mts100.Mode') {
    for (const m of entries(body?.mode)) if (typeof m.id === 'string' && typeof m.state === 'number') modes.set(m.id, m.state);
  }
  return modes;
}

/** The names and models the cloud's /v1/Hub/getSubDevices gave for a hub's devices. */
export function subDeviceNames(list: unknown): Map<string, { name: string; model: string }> {
  const names = new Map<string, { name: string; model: string }>();
  for (const e of entries(list)) {
    if (typeof e.subDeviceId !== 'string') continue;
    names.set(e.subDeviceId, {
      name: typeof e.subDeviceName === 'string' && e.subDeviceName ? e.subDeviceName : e.subDeviceId,
      model: typeof e.subDeviceType === 'string' ? e.subDeviceType : 'unknown',
    });
  }
  return names;
}

/**
 * A hub's devices from its Hub.Mts100.All, Hub.Sensor.All and Hub.Battery answers (temperatures and humidity in
 * tenths; leak, smoke and door sensors by what their entry carries), named from the cloud's list; a listed device
 * that answered in neither is `other`.
 */
export function parseHub(
  valvesPayload: unknown,
  sensorsPayload: unknown,
  batteryPayload: unknown,
  names: Map<string, { name: string; model: string }>,
): HubSubDeviceReading[] {
  const battery = new Map(entries(record(batteryPayload)?.battery).map((b) => [b.id, typeof b.value === 'number' ? b.value : null]));
  const base = (id: string, kind: HubSubDeviceReading['kind'], fallbackModel: string, e: Record<string, unknown>): HubSubDeviceReading => ({
    id,
    name: names.get(id)?.name ?? id,
    kind,
    model: names.get(id)?.model ?? fallbackModel,
    online: onlineOf(e),
    battery: battery.get(id) ?? null,
    ...NO_HUB_READINGS,
  });
  const found: HubSubDeviceReading[] = [];
  for (const v of entries(record(valvesPayload)?.all)) {
    if (typeof v.id !== 'string') continue;
    const t = record(v.temperature) ?? {};
    const onoff = record(v.togglex)?.onoff;
    found.push({
      ...base(v.id, 'valve', 'mts100', v),
      temperature: tenths(t.room),
      on: onoff === 1 ? true : onoff === 0 ? false : null,
      targetTemperature: tenths(t.currentSet),
      minTemperature: tenths(t.min),
      maxTemperature: tenths(t.max),
    });
  }
  for (const e of entries(record(sensorsPayload)?.all)) {
    if (typeof e.id !== 'string') continue;
    const safety = safetyReadingOf(e);
    const sensor = base(e.id, safety?.kind ?? 'sensor', safety?.model ?? 'ms100', e);
    found.push({ ...sensor, temperature: tenths(record(e.temperature)?.latest), humidity: tenths(record(e.humidity)?.latest), ...safety?.change });
  }
  for (const [id, { model }] of names) {
    if (!found.some((d) => d.id === id)) found.push({ ...base(id, 'other', model, {}), online: false });
  }
  return found;
}

const VALVES = 'Appliance.Hub.Mts100.All';
const SENSORS = 'Appliance.Hub.Sensor.All';
const BATTERY = 'Appliance.Hub.Battery';

const valveModes = (entry: DeviceEntry) => (entry.memory.valveModes ??= new Map());
const namesOf = (entry: DeviceEntry) => subDeviceNames(entry.object?.subDeviceList ?? entry.subDevices);

function learnValveModes(entry: DeviceEntry, namespace: string, payload: unknown): void {
  for (const [id, mode] of parseValveModes(namespace, payload)) valveModes(entry).set(id, mode);
}

/** Hubs (msh300) over Meross: the valves and sensors behind them, read, commanded and pushed (Appliance.Hub.*). */
export const HUB_MEROSS: MerossFamily = {
  capability: 'hubSensors',
  declares: (abilities) => abilities.has('Appliance.Hub.SubdeviceList') || abilities.has('Appliance.Digest.Hub'),
  types: { prefixes: ['msh'], alone: true },
  push(entry, namespace, payload, access) {
    if (!namespace.startsWith('Appliance.Hub.')) return false;
    learnValveModes(entry, namespace, payload);
    for (const { id, change } of parseHubPush(namespace, payload)) {
      if (Object.keys(change).length > 0) access.emit({ type: 'hubDevice', uuid: entry.def.uuid, id, change, source: 'push' });
    }
    return true;
  },
  pollRequests: [get(VALVES, { all: [] }), get(SENSORS, { all: [] }), get(BATTERY, { battery: [] })],
  poll(entry, answers, changed) {
    const uuid = entry.def.uuid;
    const events: CloudEvent[] = [];
    if (answers.has(VALVES) || answers.has(SENSORS)) {
      for (const sub of parseHub(answers.get(VALVES), answers.get(SENSORS), answers.get(BATTERY), namesOf(entry))) {
        const { id, name: _name, kind: _kind, model: _model, ...change } = sub;
        if (changed(`hub ${id}`, change)) events.push({ type: 'hubDevice', uuid, id, change, source: 'push' });
      }
    } else if (answers.has(BATTERY)) {
      for (const { id, change } of parseHubPush(BATTERY, answers.get(BATTERY))) events.push({ type: 'hubDevice', uuid, id, change, source: 'push' });
    }
    return { events };
  },
  forget: (entry) => entry.memory.valveModes?.clear(),
  port: (access) => ({
    async readHub(uuid) {
      const entry = access.reachable(uuid);
      await access.assertCapability(entry, 'hubSensors', 'Appliance.Hub.*');
      const read = (namespace: string, payload: unknown) => access.send(entry, `reading ${namespace}`, get(namespace, payload));
      const valves = await read(VALVES, { all: [] });
      learnValveModes(entry, VALVES, valves);
      const sensors = await read(SENSORS, { all: [] });
      const battery = await read(BATTERY, { battery: [] });
      return parseHub(valves, sensors, battery, namesOf(entry));
    },
    async setValve(uuid, id, change) {
      const entry = access.reachable(uuid);
      await access.assertCapability(entry, 'hubSensors', 'Appliance.Hub.*');
      const send = (namespace: string, payload: unknown) => access.send(entry, namespace, set(namespace, payload));
      if (change.on !== undefined) await send('Appliance.Hub.ToggleX', { togglex: [{ id, onoff: change.on ? 1 : 0 }] });
      if (change.targetTemperature !== undefined) {
        // The valve heats to the target of its mode: set the custom target, then the custom mode, as the app does;
        // a valve known to be in the custom mode already needs no second message.
        await send('Appliance.Hub.Mts100.Temperature', { temperature: [{ id, custom: Math.round(change.targetTemperature * 10) }] });
        if (valveModes(entry).get(id) !== VALVE_CUSTOM_MODE) {
          await send('Appliance.Hub.Mts100.Mode', { mode: [{ id, state: VALVE_CUSTOM_MODE }] });
          valveModes(entry).set(id, VALVE_CUSTOM_MODE);
        }
      }
    },
  }),
};
