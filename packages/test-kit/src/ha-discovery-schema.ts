import { z } from '@homeops/common/core';

// Home Assistant's MQTT device discovery (`<prefix>/device/<id>/config`), written from its documentation
// (integrations/mqtt, "Device discovery payload", the abbreviation tables, and each platform's page): `dev` and `o`
// required at the root, `cmps` keyed by component id, each with its platform `p` and `unique_id`, the platform's
// required keys, device classes, state classes and units. HA ignores unknown keys; this schema refuses them, so a
// misspelt option fails a test instead of being silently dropped.

/** HA's abbreviations (the subset a discovery payload of ours may use); a key and its abbreviation may not both be given. */
const ABBREVIATIONS: Record<string, string> = {
  act_t: 'action_topic',
  act_tpl: 'action_template',
  avty: 'availability',
  avty_mode: 'availability_mode',
  avty_t: 'availability_topic',
  avty_tpl: 'availability_template',
  bri_cmd_t: 'brightness_command_topic',
  bri_scl: 'brightness_scale',
  bri_stat_t: 'brightness_state_topic',
  cmd_t: 'command_topic',
  cmd_tpl: 'command_template',
  cmps: 'components',
  curr_temp_t: 'current_temperature_topic',
  curr_temp_tpl: 'current_temperature_template',
  dev: 'device',
  dev_cla: 'device_class',
  dsp_prc: 'display_precision',
  e: 'encoding',
  en: 'enabled_by_default',
  ent_cat: 'entity_category',
  ent_pic: 'entity_picture',
  evt_typ: 'event_types',
  exp_aft: 'expire_after',
  frc_upd: 'force_update',
  fx_list: 'effect_list',
  ic: 'icon',
  json_attr_t: 'json_attributes_topic',
  json_attr_tpl: 'json_attributes_template',
  max_temp: 'max_temp',
  min_temp: 'min_temp',
  mode_cmd_t: 'mode_command_topic',
  mode_cmd_tpl: 'mode_command_template',
  mode_stat_t: 'mode_state_topic',
  mode_stat_tpl: 'mode_state_template',
  pr_mode_cmd_t: 'preset_mode_command_topic',
  pr_mode_cmd_tpl: 'preset_mode_command_template',
  pr_mode_stat_t: 'preset_mode_state_topic',
  pr_mode_val_tpl: 'preset_mode_value_template',
  pr_modes: 'preset_modes',
  o: 'origin',
  obj_id: 'object_id',
  off_dly: 'off_delay',
  opt: 'optimistic',
  p: 'platform',
  pl_avail: 'payload_available',
  pl_cls: 'payload_close',
  pl_not_avail: 'payload_not_available',
  pl_off: 'payload_off',
  pl_on: 'payload_on',
  pl_open: 'payload_open',
  pl_prs: 'payload_press',
  pl_stop: 'payload_stop',
  pos_clsd: 'position_closed',
  pos_open: 'position_open',
  pos_t: 'position_topic',
  pos_tpl: 'position_template',
  ret: 'retain',
  set_pos_t: 'set_position_topic',
  set_pos_tpl: 'set_position_template',
  stat_cla: 'state_class',
  stat_closing: 'state_closing',
  stat_clsd: 'state_closed',
  stat_off: 'state_off',
  stat_on: 'state_on',
  stat_open: 'state_open',
  stat_opening: 'state_opening',
  stat_stopped: 'state_stopped',
  stat_t: 'state_topic',
  stat_tpl: 'state_template',
  stat_val_tpl: 'state_value_template',
  sug_dsp_prc: 'suggested_display_precision',
  sup_clrm: 'supported_color_modes',
  t: 'topic',
  temp_cmd_t: 'temperature_command_topic',
  temp_cmd_tpl: 'temperature_command_template',
  temp_stat_t: 'temperature_state_topic',
  temp_stat_tpl: 'temperature_state_template',
  temp_unit: 'temperature_unit',
  uniq_id: 'unique_id',
  unit_of_meas: 'unit_of_measurement',
  val_tpl: 'value_template',
};
const DEVICE_ABBREVIATIONS: Record<string, string> = {
  cu: 'configuration_url',
  cns: 'connections',
  ids: 'identifiers',
  mf: 'manufacturer',
  mdl: 'model',
  mdl_id: 'model_id',
  hw: 'hw_version',
  sw: 'sw_version',
  sa: 'suggested_area',
  sn: 'serial_number',
};
const ORIGIN_ABBREVIATIONS: Record<string, string> = { sw: 'sw_version', url: 'support_url' };

/** The keys with their full names; throws when a key is given both ways. */
function expand(value: unknown, table: Record<string, string>, where: string): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const full = table[key] ?? key;
    if (full in out) throw new Error(`${where}: ${full} is given twice (abbreviated and in full)`);
    out[full] = v;
  }
  return out;
}

/** The payload with every abbreviation written out: root, device, origin, availability entries and components. */
export function expandDiscoveryPayload(payload: unknown): unknown {
  const root = expand(payload, ABBREVIATIONS, 'root') as Record<string, unknown>;
  if (root === null || typeof root !== 'object') return root;
  const availability = (list: unknown) => (Array.isArray(list) ? list.map((entry, i) => expand(entry, ABBREVIATIONS, `availability[${i}]`)) : list);
  const components =
    root.components && typeof root.components === 'object'
      ? Object.fromEntries(
          Object.entries(root.components).map(([id, c]) => {
            const component = expand(c, ABBREVIATIONS, `components.${id}`) as Record<string, unknown>;
            return [
              id,
              component && typeof component === 'object' && 'availability' in component
                ? { ...component, availability: availability(component.availability) }
                : component,
            ];
          }),
        )
      : root.components;
  return {
    ...root,
    ...('device' in root ? { device: expand(root.device, DEVICE_ABBREVIATIONS, 'device') } : {}),
    ...('origin' in root ? { origin: expand(root.origin, ORIGIN_ABBREVIATIONS, 'origin') } : {}),
    ...('availability' in root ? { availability: availability(root.availability) } : {}),
    components,
  };
}

/** A topic HA publishes to or subscribes: not empty, no wildcard, no NUL. */
const Topic = z
  .string()
  .min(1)
  .max(65_535)
  .refine((t) => !/[+#]/.test(t) && !t.includes(String.fromCharCode(0)), 'must be a topic without wildcards');
const Template = z.string().min(1);
const ObjectId = z.string().regex(/^[A-Za-z0-9_-]+$/, 'must be letters, digits, _ or -');

const AvailabilityEntry = z.strictObject({
  topic: Topic,
  payload_available: z.string().optional(),
  payload_not_available: z.string().optional(),
  value_template: Template.optional(),
});
const AvailabilityShape = {
  availability: z.array(AvailabilityEntry).min(1).optional(),
  availability_topic: Topic.optional(),
  availability_mode: z.enum(['all', 'any', 'latest']).optional(),
  availability_template: Template.optional(),
  payload_available: z.string().optional(),
  payload_not_available: z.string().optional(),
};

const Device = z
  .strictObject({
    identifiers: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
    connections: z.array(z.tuple([z.string(), z.string()])).optional(),
    name: z.string().min(1).optional(),
    manufacturer: z.string().optional(),
    model: z.string().optional(),
    model_id: z.string().optional(),
    hw_version: z.string().optional(),
    sw_version: z.string().optional(),
    serial_number: z.string().optional(),
    suggested_area: z.string().optional(),
    configuration_url: z
      .string()
      .regex(/^(https?|homeassistant):\/\//, 'must be an http(s):// or homeassistant:// URL')
      .optional(),
    via_device: z.string().optional(),
  })
  .refine((d) => d.identifiers !== undefined || d.connections !== undefined, 'a device needs identifiers or connections');

const Origin = z.strictObject({ name: z.string().min(1), sw_version: z.string().optional(), support_url: z.string().url().optional() });

/** What every entity component may have. */
const EntityShape = {
  unique_id: z.string().min(1),
  name: z.string().min(1).nullable().optional(),
  object_id: z.string().optional(),
  default_entity_id: z.string().optional(),
  icon: z
    .string()
    .regex(/^[a-z0-9-]+:[a-z0-9-]+$/, 'must be an icon name such as mdi:bell')
    .optional(),
  entity_category: z.enum(['config', 'diagnostic']).optional(),
  entity_picture: z.string().optional(),
  enabled_by_default: z.boolean().optional(),
  json_attributes_topic: Topic.optional(),
  json_attributes_template: Template.optional(),
  qos: z.union([z.literal(0), z.literal(1), z.literal(2)]).optional(),
  encoding: z.string().optional(),
  ...AvailabilityShape,
};

const SENSOR_DEVICE_CLASSES = [
  'absolute_humidity', 'apparent_power', 'aqi', 'area', 'atmospheric_pressure', 'battery', 'blood_glucose_concentration', 'carbon_dioxide',
  'carbon_monoxide', 'conductivity', 'current', 'data_rate', 'data_size', 'date', 'distance', 'duration', 'energy', 'energy_distance',
  'energy_storage', 'enum', 'frequency', 'gas', 'humidity', 'illuminance', 'irradiance', 'moisture', 'monetary', 'nitrogen_dioxide',
  'nitrogen_monoxide', 'nitrous_oxide', 'ozone', 'ph', 'pm1', 'pm10', 'pm25', 'power', 'power_factor', 'precipitation',
  'precipitation_intensity', 'pressure', 'reactive_energy', 'reactive_power', 'signal_strength', 'sound_pressure', 'speed',
  'sulphur_dioxide', 'temperature', 'timestamp', 'volatile_organic_compounds', 'volatile_organic_compounds_parts', 'voltage', 'volume',
  'volume_flow_rate', 'volume_storage', 'water', 'weight', 'wind_direction', 'wind_speed',
] as const; // prettier-ignore

/** Units HA accepts for the device classes our services use (others are not checked here). */
const SENSOR_UNITS: Partial<Record<(typeof SENSOR_DEVICE_CLASSES)[number], string[]>> = {
  power: ['mW', 'W', 'kW', 'MW', 'GW', 'TW', 'BTU/h'],
  energy: ['J', 'kJ', 'MJ', 'GJ', 'mWh', 'Wh', 'kWh', 'MWh', 'GWh', 'TWh', 'cal', 'kcal', 'Mcal', 'Gcal'],
  voltage: ['V', 'mV', 'µV', 'kV', 'MV'],
  current: ['A', 'mA'],
  temperature: ['°C', '°F', 'K'],
  humidity: ['%'],
  battery: ['%'],
  signal_strength: ['dB', 'dBm'],
  duration: ['d', 'h', 'min', 's', 'ms', 'µs'],
};

const Sensor = z
  .strictObject({
    platform: z.literal('sensor'),
    ...EntityShape,
    state_topic: Topic,
    device_class: z.enum(SENSOR_DEVICE_CLASSES).optional(),
    state_class: z.enum(['measurement', 'measurement_angle', 'total', 'total_increasing']).optional(),
    unit_of_measurement: z.string().optional(),
    value_template: Template.optional(),
    expire_after: z.number().int().min(0).optional(),
    force_update: z.boolean().optional(),
    last_reset_value_template: Template.optional(),
    suggested_display_precision: z.number().int().min(0).optional(),
    options: z.array(z.string()).min(1).optional(),
  })
  .superRefine((s, ctx) => {
    const units = s.device_class === undefined ? undefined : SENSOR_UNITS[s.device_class];
    if (units && (s.unit_of_measurement === undefined || !units.includes(s.unit_of_measurement))) {
      ctx.addIssue({ code: 'custom', path: ['unit_of_measurement'], message: `a ${s.device_class} sensor needs one of ${units.join(', ')}` });
    }
    if ((s.device_class === 'energy' || s.device_class === 'energy_storage') && s.state_class === 'measurement') {
      ctx.addIssue({ code: 'custom', path: ['state_class'], message: `an ${s.device_class} sensor is total or total_increasing, not measurement` });
    }
    if (s.device_class === 'enum' && (s.options === undefined || s.state_class !== undefined || s.unit_of_measurement !== undefined)) {
      ctx.addIssue({ code: 'custom', path: ['options'], message: 'an enum sensor has options and neither a state class nor a unit' });
    }
    if (s.options !== undefined && s.device_class !== 'enum') ctx.addIssue({ code: 'custom', path: ['options'], message: 'options need device_class enum' });
  });

const BinarySensor = z.strictObject({
  platform: z.literal('binary_sensor'),
  ...EntityShape,
  state_topic: Topic,
  device_class: z
    .enum([
      'battery',
      'battery_charging',
      'carbon_monoxide',
      'cold',
      'connectivity',
      'door',
      'garage_door',
      'gas',
      'heat',
      'light',
      'lock',
      'moisture',
      'motion',
      'moving',
      'occupancy',
      'opening',
      'plug',
      'power',
      'presence',
      'problem',
      'running',
      'safety',
      'smoke',
      'sound',
      'tamper',
      'update',
      'vibration',
      'window',
    ]) // prettier-ignore
    .optional(),
  payload_on: z.string().optional(),
  payload_off: z.string().optional(),
  value_template: Template.optional(),
  off_delay: z.number().int().min(0).optional(),
  expire_after: z.number().int().min(0).optional(),
  force_update: z.boolean().optional(),
});

const Notify = z.strictObject({
  platform: z.literal('notify'),
  ...EntityShape,
  command_topic: Topic,
  command_template: Template.optional(),
  retain: z.boolean().optional(),
});

const Button = z.strictObject({
  platform: z.literal('button'),
  ...EntityShape,
  command_topic: Topic,
  command_template: Template.optional(),
  device_class: z.enum(['identify', 'restart', 'update']).optional(),
  payload_press: z.string().optional(),
  retain: z.boolean().optional(),
});

const Event = z.strictObject({
  platform: z.literal('event'),
  ...EntityShape,
  state_topic: Topic,
  event_types: z.array(z.string().min(1)).min(1),
  device_class: z.enum(['button', 'doorbell', 'motion']).optional(),
  value_template: Template.optional(),
});

const Switch = z.strictObject({
  platform: z.literal('switch'),
  ...EntityShape,
  command_topic: Topic,
  command_template: Template.optional(),
  state_topic: Topic.optional(),
  device_class: z.enum(['outlet', 'switch']).optional(),
  payload_on: z.string().optional(),
  payload_off: z.string().optional(),
  state_on: z.string().optional(),
  state_off: z.string().optional(),
  value_template: Template.optional(),
  optimistic: z.boolean().optional(),
  retain: z.boolean().optional(),
});

const Cover = z
  .strictObject({
    platform: z.literal('cover'),
    ...EntityShape,
    command_topic: Topic.optional(),
    state_topic: Topic.optional(),
    position_topic: Topic.optional(),
    set_position_topic: Topic.optional(),
    set_position_template: Template.optional(),
    position_template: Template.optional(),
    value_template: Template.optional(),
    device_class: z.enum(['awning', 'blind', 'curtain', 'damper', 'door', 'garage', 'gate', 'shade', 'shutter', 'window']).optional(),
    payload_open: z.string().nullable().optional(),
    payload_close: z.string().nullable().optional(),
    payload_stop: z.string().nullable().optional(),
    state_open: z.string().optional(),
    state_opening: z.string().optional(),
    state_closed: z.string().optional(),
    state_closing: z.string().optional(),
    state_stopped: z.string().optional(),
    position_open: z.number().int().optional(),
    position_closed: z.number().int().optional(),
    optimistic: z.boolean().optional(),
    retain: z.boolean().optional(),
  })
  .refine((c) => c.position_template === undefined || c.position_topic !== undefined, {
    path: ['position_topic'],
    message: 'position_template needs position_topic',
  })
  .refine((c) => c.set_position_template === undefined || c.set_position_topic !== undefined, {
    path: ['set_position_topic'],
    message: 'set_position_template needs set_position_topic',
  });

const COLOR_MODES = ['onoff', 'brightness', 'color_temp', 'hs', 'xy', 'rgb', 'rgbw', 'rgbww', 'white'] as const;
const Light = z
  .strictObject({
    platform: z.literal('light'),
    ...EntityShape,
    schema: z.enum(['basic', 'json', 'template']).optional(),
    command_topic: Topic,
    state_topic: Topic.optional(),
    command_on_template: Template.optional(),
    command_off_template: Template.optional(),
    state_template: Template.optional(),
    brightness: z.boolean().optional(),
    brightness_scale: z.number().int().min(1).optional(),
    supported_color_modes: z.array(z.enum(COLOR_MODES)).min(1).optional(),
    color_temp_kelvin: z.boolean().optional(),
    min_kelvin: z.number().int().positive().optional(),
    max_kelvin: z.number().int().positive().optional(),
    effect: z.boolean().optional(),
    effect_list: z.array(z.string()).optional(),
    flash: z.boolean().optional(),
    transition: z.boolean().optional(),
    optimistic: z.boolean().optional(),
    retain: z.boolean().optional(),
  })
  .superRefine((l, ctx) => {
    if (l.schema === 'template' && (l.command_on_template === undefined || l.command_off_template === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['command_on_template'], message: 'a template light needs command_on_template and command_off_template' });
    }
    const modes = l.supported_color_modes ?? [];
    if (modes.length > 1 && modes.some((m) => m === 'onoff' || m === 'brightness')) {
      ctx.addIssue({ code: 'custom', path: ['supported_color_modes'], message: 'onoff and brightness must be the only color mode' });
    }
    if (l.min_kelvin !== undefined && l.max_kelvin !== undefined && l.min_kelvin >= l.max_kelvin) {
      ctx.addIssue({ code: 'custom', path: ['min_kelvin'], message: 'min_kelvin must be below max_kelvin' });
    }
  });

const Climate = z
  .strictObject({
    platform: z.literal('climate'),
    ...EntityShape,
    modes: z
      .array(z.enum(['auto', 'off', 'cool', 'heat', 'dry', 'fan_only', 'heat_cool']))
      .min(1)
      .optional(),
    mode_command_topic: Topic.optional(),
    mode_command_template: Template.optional(),
    mode_state_topic: Topic.optional(),
    mode_state_template: Template.optional(),
    // Presets: any names but `none`, which Home Assistant keeps for "no preset".
    preset_modes: z
      .array(
        z
          .string()
          .min(1)
          .refine((m) => m !== 'none', 'none is reserved'),
      )
      .min(1)
      .optional(),
    preset_mode_command_topic: Topic.optional(),
    preset_mode_command_template: Template.optional(),
    preset_mode_state_topic: Topic.optional(),
    preset_mode_value_template: Template.optional(),
    temperature_command_topic: Topic.optional(),
    temperature_command_template: Template.optional(),
    temperature_state_topic: Topic.optional(),
    temperature_state_template: Template.optional(),
    current_temperature_topic: Topic.optional(),
    current_temperature_template: Template.optional(),
    action_topic: Topic.optional(),
    action_template: Template.optional(),
    min_temp: z.number().optional(),
    max_temp: z.number().optional(),
    temp_step: z.number().positive().optional(),
    precision: z.union([z.literal(0.1), z.literal(0.5), z.literal(1)]).optional(),
    temperature_unit: z.enum(['C', 'F']).optional(),
    optimistic: z.boolean().optional(),
    retain: z.boolean().optional(),
  })
  .refine((c) => c.min_temp === undefined || c.max_temp === undefined || c.min_temp < c.max_temp, {
    path: ['min_temp'],
    message: 'min_temp must be below max_temp',
  });

/** One component of a device discovery payload (abbreviations written out), by platform. */
export const HaComponentSchema = z.discriminatedUnion('platform', [Notify, Sensor, BinarySensor, Button, Event, Switch, Cover, Light, Climate]);

/** A whole device discovery payload, abbreviations written out (expandDiscoveryPayload). */
export const HaDeviceDiscoverySchema = z
  .strictObject({
    device: Device,
    origin: Origin,
    components: z.record(ObjectId, HaComponentSchema).refine((c) => Object.keys(c).length > 0, 'a device needs at least one component'),
    state_topic: Topic.optional(),
    command_topic: Topic.optional(),
    qos: z.union([z.literal(0), z.literal(1), z.literal(2)]).optional(),
    encoding: z.string().optional(),
    ...AvailabilityShape,
  })
  .refine((d) => d.availability === undefined || d.availability_topic === undefined, 'availability and availability_topic cannot both be set')
  .refine((d) => new Set(Object.values(d.components).map((c) => c.unique_id)).size === Object.keys(d.components).length, 'unique_id must differ per component');

/** The problems of a discovery message (topic and payload text) against HA's rules; empty when it is valid. */
export function haDiscoveryProblems(topic: string, payload: string): string[] {
  const problems: string[] = [];
  const match = /^[^/+#]+(?:\/[^/+#]+)*\/device\/([^/]+)\/config$/.exec(topic);
  if (!match || !/^[A-Za-z0-9_-]+$/.test(match[1]!)) problems.push(`topic ${topic} is not <prefix>/device/<[A-Za-z0-9_-]+>/config`);
  let parsed: unknown;
  try {
    parsed = expandDiscoveryPayload(JSON.parse(payload));
  } catch (err) {
    return [...problems, `payload: ${(err as Error).message}`];
  }
  const result = HaDeviceDiscoverySchema.safeParse(parsed);
  if (!result.success) problems.push(...result.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`));
  return problems;
}
