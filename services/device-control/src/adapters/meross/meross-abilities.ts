import type { Capability } from '../../domain/device-cloud.js';
import type { CoverMotion } from '../../families/cover/domain/cover.types.js';
import type { DailyEnergy, PowerReading } from '../../families/energy/domain/energy.types.js';
import type { GarageDoorReading } from '../../families/garage-door/domain/garage-door.types.js';
import type { HubSubDeviceReading } from '../../families/hub/domain/hub.types.js';
import type { LightChange, LightColorMode, LightFeatures } from '../../families/light/domain/light.types.js';
import type { SwitchProtocol } from './meross-payloads.js';

/** What a device declares it understands: the namespaces of its Appliance.System.Ability answer, with their details. */
export type Abilities = ReadonlyMap<string, unknown>;

function record(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
}

/** The namespaces of an Appliance.System.Ability answer; null when it is not one. */
export function parseAbilities(payload: unknown): Abilities | null {
  const ability = record(record(payload)?.ability);
  return ability ? new Map(Object.entries(ability)) : null;
}

/**
 * What the device can do. A garage door opener or a cover is never a switch, whatever switch namespace it also
 * declares (some openers list ToggleX): what a switch command would make them do is unknown.
 */
export function capabilitiesOf(abilities: Abilities): Capability[] {
  const has = (namespace: string) => abilities.has(namespace);
  const capabilities: Capability[] = [];
  const garageDoor = has('Appliance.GarageDoor.State');
  const cover = has('Appliance.RollerShutter.State') || has('Appliance.RollerShutter.Position');
  if (!garageDoor && !cover && (has('Appliance.Control.ToggleX') || has('Appliance.Control.Toggle'))) capabilities.push('switch');
  if (garageDoor) capabilities.push('garageDoor');
  if (cover) capabilities.push('cover');
  if (has('Appliance.Control.Light')) capabilities.push('light');
  if (has('Appliance.Control.Electricity') || has('Appliance.Control.ConsumptionX')) capabilities.push('energy');
  if (has('Appliance.Hub.SubdeviceList') || has('Appliance.Digest.Hub')) capabilities.push('hubSensors');
  return capabilities;
}

/** How a switch of this device is commanded. */
export function switchProtocolOf(abilities: Abilities): SwitchProtocol {
  if (!capabilitiesOf(abilities).includes('switch')) return 'none';
  return abilities.has('Appliance.Control.ToggleX') ? 'togglex' : 'toggle';
}

/**
 * Until the abilities are read: the family the device type names (msg garage door, mrs cover, msh hub, msl light),
 * else a plug. Only for display; no command is sent before the abilities are known.
 */
export function capabilitiesOfType(deviceType: string): Capability[] {
  const type = deviceType.toLowerCase();
  if (type.startsWith('msg')) return ['garageDoor'];
  if (type.startsWith('mrs')) return ['cover'];
  if (type.startsWith('msh')) return ['hubSensors'];
  if (type.startsWith('msl')) return ['switch', 'light'];
  // Plugs that measure energy (mss310 family).
  if (type.startsWith('mss310') || type.startsWith('mss315')) return ['switch', 'energy'];
  return ['switch'];
}

function doorReadings(value: unknown): GarageDoorReading[] {
  const list = Array.isArray(value) ? value : [value];
  return list.flatMap((entry) => {
    const e = record(entry);
    if (!e || (e.open !== 0 && e.open !== 1)) return [];
    const channel = typeof e.channel === 'number' && Number.isInteger(e.channel) ? e.channel : 0;
    return [{ channel, state: e.open === 1 ? 'open' : 'closed' } satisfies GarageDoorReading];
  });
}

/** Doors from a GETACK or a PUSH of Appliance.GarageDoor.State (`{ state: [{ channel, open }] }`). */
export function parseGarageDoors(payload: unknown): GarageDoorReading[] {
  return doorReadings(record(payload)?.state);
}

/**
 * The SETACK of an open or close: `open` is where the door was when the command came. Where that differs from what
 * was asked (and `execute` is not 0), the door now moves; otherwise it already is there.
 */
export function parseGarageDoorAnswer(payload: unknown, channel: number, open: boolean): GarageDoorReading | null {
  const state = record(record(payload)?.state);
  if (!state || (state.open !== 0 && state.open !== 1)) return null;
  const was = state.open === 1;
  if (was !== open && state.execute !== 0) return { channel, state: open ? 'opening' : 'closing' };
  return { channel, state: was ? 'open' : 'closed' };
}

function entries(value: unknown): Array<Record<string, unknown>> {
  return (Array.isArray(value) ? value : [value]).flatMap((e) => (record(e) ? [record(e)!] : []));
}

const channelOf = (e: Record<string, unknown>) => (typeof e.channel === 'number' && Number.isInteger(e.channel) ? e.channel : 0);

/** Positions from Appliance.RollerShutter.Position (`{ position: [{ channel, position }] }`), 0 closed … 100 open. */
export function parseCoverPositions(payload: unknown): Array<{ channel: number; position: number }> {
  return entries(record(payload)?.position).flatMap((e) =>
    typeof e.position === 'number' && e.position >= 0 && e.position <= 100 ? [{ channel: channelOf(e), position: Math.round(e.position) }] : [],
  );
}

const MOTIONS: Record<number, CoverMotion> = { 0: 'idle', 1: 'opening', 2: 'closing' };

/** Motion from Appliance.RollerShutter.State (`{ state: [{ channel, state }] }`: 0 idle, 1 opening, 2 closing). */
export function parseCoverMotions(payload: unknown): Array<{ channel: number; motion: CoverMotion }> {
  return entries(record(payload)?.state).flatMap((e) => {
    const motion = typeof e.state === 'number' ? MOTIONS[e.state] : undefined;
    return motion ? [{ channel: channelOf(e), motion }] : [];
  });
}

/** Covers take any position from firmware 6.6.6 on (meross_lan's observation); older ones only run fully. */
export function coverTakesPositions(firmware: string | undefined): boolean {
  const [major = 0, minor = 0, patch = 0] = (firmware ?? '').split('.').map((n) => Number.parseInt(n, 10) || 0);
  return major * 1_000_000 + minor * 1_000 + patch >= 6_006_006;
}

// Meross's light capacity bits.
const RGB = 1;
const TEMPERATURE = 2;
const LUMINANCE = 4;

/** What a light can change, from the capacity its Appliance.Control.Light ability declares. */
export function lightFeaturesOf(abilities: Abilities): LightFeatures {
  const capacity = record(abilities.get('Appliance.Control.Light'))?.capacity;
  if (typeof capacity !== 'number') return { brightness: true, temperature: false, rgb: false };
  return { brightness: (capacity & LUMINANCE) !== 0, temperature: (capacity & TEMPERATURE) !== 0, rgb: (capacity & RGB) !== 0 };
}

/** A light's settings from Appliance.System.All's digest or an Appliance.Control.Light push (`light: {...}`). */
export function parseLights(light: unknown): Array<{ channel: number; mode?: LightColorMode } & LightChange> {
  return entries(light).map((e) => {
    const reading: { channel: number; mode?: LightColorMode } & LightChange = { channel: channelOf(e) };
    // The capacity of a reading names the mode the light is in (RGB, else temperature); luminance alone says nothing of it.
    if (typeof e.capacity === 'number') {
      if (e.capacity & RGB) reading.mode = 'rgb';
      else if (e.capacity & TEMPERATURE) reading.mode = 'temperature';
    }
    if (typeof e.luminance === 'number') reading.brightness = e.luminance;
    if (typeof e.temperature === 'number') reading.temperature = e.temperature;
    if (typeof e.rgb === 'number') reading.rgb = e.rgb;
    return reading;
  });
}

/** The Appliance.Control.Light SET payload: the fields to change and the capacity bits that name them. */
export function lightCommand(channel: number, change: LightChange): Record<string, number> {
  const light: Record<string, number> = { channel, capacity: 0 };
  if (change.rgb !== undefined) Object.assign(light, { rgb: change.rgb, capacity: light.capacity! | RGB });
  if (change.temperature !== undefined) Object.assign(light, { temperature: change.temperature, capacity: light.capacity! | TEMPERATURE });
  if (change.brightness !== undefined) Object.assign(light, { luminance: change.brightness, capacity: light.capacity! | LUMINANCE });
  return light;
}

/** Appliance.Control.Electricity (`{ electricity: { power: mW, voltage: dV, current: mA } }`) in W, V and A. */
export function parsePower(payload: unknown): PowerReading | null {
  const e = record(record(payload)?.electricity);
  if (!e || typeof e.power !== 'number' || typeof e.voltage !== 'number' || typeof e.current !== 'number') return null;
  return { power: e.power / 1000, voltage: e.voltage / 10, current: e.current / 1000 };
}

/** Appliance.Control.ConsumptionX (`{ consumptionx: [{ date, value: Wh }] }`) per day in kWh, oldest first. */
export function parseDailyEnergy(payload: unknown): DailyEnergy[] | null {
  const list = record(payload)?.consumptionx;
  if (!Array.isArray(list)) return null;
  return entries(list)
    .flatMap((e) =>
      typeof e.date === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(e.date) && typeof e.value === 'number' ? [{ date: e.date, kWh: e.value / 1000 }] : [],
    )
    .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
}

const tenths = (value: unknown) => (typeof value === 'number' ? value / 10 : null);
const onlineOf = (e: Record<string, unknown>) => record(e.online)?.status === 1;

/**
 * What a hub pushes about the devices behind it: a valve switched at the valve (Hub.ToggleX), its temperatures
 * (Hub.Mts100.Temperature), a sensor's reading (Hub.Sensor.TempHum or .All), a battery (Hub.Battery).
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
      return each('all', (e) => defined({ temperature: tenths(record(e.temperature)?.latest), humidity: tenths(record(e.humidity)?.latest) }));
    case 'Appliance.Hub.Battery':
      return each('battery', (e) => (typeof e.value === 'number' ? { battery: e.value } : {}));
    default:
      return [];
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
 * tenths), named from the cloud's list; a listed device that answered in neither is `other`.
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
    temperature: null,
    humidity: null,
    on: null,
    targetTemperature: null,
    minTemperature: null,
    maxTemperature: null,
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
    found.push({ ...base(e.id, 'sensor', 'ms100', e), temperature: tenths(record(e.temperature)?.latest), humidity: tenths(record(e.humidity)?.latest) });
  }
  for (const [id, { model }] of names) {
    if (!found.some((d) => d.id === id)) found.push({ ...base(id, 'other', model, {}), online: false });
  }
  return found;
}
