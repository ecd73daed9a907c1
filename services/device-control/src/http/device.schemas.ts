import { z } from '@homeops/common';

const nonNegativeIntText = z
  .string()
  .regex(/^\d{1,6}$/, 'must be a non-negative integer')
  .transform(Number);

/** `:uuid` of the device routes. */
export const UuidParamsSchema = z.object({
  uuid: z.string().min(1).max(128).openapi({ description: 'Device uuid as listed by GET /devices' }),
});

/** `:uuid` and `:channel` of PUT /devices/:uuid/channels/:channel. */
export const ChannelParamsSchema = UuidParamsSchema.extend({
  channel: nonNegativeIntText.openapi({ type: 'integer', description: 'Channel index (0 on single-channel plugs)' }),
});

/** Body of POST /devices/:uuid/toggle; the channel defaults to 0. */
export const ToggleBodySchema = z
  .object({
    channel: z.number().int('must be an integer').min(0, 'must not be negative').default(0),
  })
  .openapi('ToggleRequest');

/** Body of PUT /devices/:uuid/channels/:channel. */
export const SetChannelBodySchema = z.object({ on: z.boolean() }).openapi('SetChannelRequest');

/** One channel of a device with its state. */
export const ChannelSchema = z
  .object({
    channel: z.number().int(),
    name: z.string(),
    on: z.boolean().nullable().openapi({ description: 'null while the state is unknown' }),
  })
  .openapi('Channel');

/** A device as GET /devices lists it: the spec fields first, then channels and diagnostics. */
export const DeviceSchema = z
  .object({
    uuid: z.string(),
    name: z.string(),
    type: z.string(),
    online: z.boolean(),
    status: z.enum(['online', 'offline', 'upgrading']).openapi({ description: 'upgrading: installing firmware (Meross onlineStatus 3), not online' }),
    controllable: z.boolean().openapi({ description: 'online, command channel connected and switchable' }),
    channels: z.array(ChannelSchema),
    commandReady: z.boolean(),
    switchable: z.boolean(),
    capabilities: z.array(z.enum(['switch', 'garageDoor', 'cover', 'light', 'energy', 'hubSensors'])).openapi({
      description:
        'What the device can do, from its declared abilities (from its type until they are read); only `switch` devices take toggle and channel commands',
    }),
    coverPositioning: z.boolean().optional().openapi({ description: 'Covers only: takes any position 0–100 (else only fully open or closed)' }),
    firmware: z.string().nullable(),
    hardware: z.string().nullable(),
    lastSeenAt: z.string().nullable().openapi({ description: 'Last time the device was seen online (ISO time)' }),
    transport: z.enum(['lan', 'cloud', 'unreachable']).openapi({
      description: 'How the next message to the device travels: straight over the LAN (costs no cloud message), through the cloud, or neither',
    }),
    address: z.string().nullable().openapi({ description: 'The LAN address (host or host:port), from the configuration or the device; null while unknown' }),
    lanProblem: z.string().nullable().openapi({ description: 'Why the LAN is not used for this device (wrong key, encryption, no answer); null while it is' }),
  })
  .openapi('Device');

/** The JSON of one device. */
export type DeviceBody = z.infer<typeof DeviceSchema>;

/** Success body of toggle and switch (the spec's toggle body plus the new state). */
export const CommandResultSchema = z
  .object({
    status: z.literal('success'),
    device: z.string().openapi({ description: 'Name of the device' }),
    action: z.enum(['toggle', 'on', 'off']),
    channel: z.number().int(),
    on: z.boolean().openapi({ description: 'The state of the channel after the command' }),
  })
  .openapi('CommandResult');

/** Answer of POST /devices/sync. */
export const SyncResultSchema = z
  .object({
    total: z.number().int(),
    added: z.number().int(),
    removed: z.number().int(),
    updated: z.number().int(),
  })
  .openapi('SyncResult');

export type SyncResultBody = z.infer<typeof SyncResultSchema>;

/** `:uuid` and `:channel` of the garage door routes (the door; 0 on a one-door opener). */
export const DoorParamsSchema = UuidParamsSchema.extend({
  channel: nonNegativeIntText.openapi({ type: 'integer', description: 'The door or cover channel (0 on a single one, such as the msg100 or mrs100)' }),
});

const GarageDoorStateSchema = z.enum(['open', 'closed', 'opening', 'closing']);

/** GET /devices/:uuid/garage-door. */
export const GarageDoorsSchema = z
  .object({
    uuid: z.string(),
    name: z.string(),
    doors: z.array(
      z.object({
        channel: z.number().int(),
        state: GarageDoorStateSchema.nullable().openapi({ description: 'opening/closing while it moves after a command; null while unknown' }),
        at: z.string().nullable().openapi({ description: 'When the opener last told this state (ISO time)' }),
      }),
    ),
  })
  .openapi('GarageDoors');

export type GarageDoorsBody = z.infer<typeof GarageDoorsSchema>;

/** Answer of POST /devices/:uuid/garage-door/:channel/open and /close. */
export const GarageDoorResultSchema = z
  .object({
    status: z.literal('success'),
    device: z.string(),
    action: z.enum(['open', 'close']),
    channel: z.number().int(),
    state: GarageDoorStateSchema.openapi({ description: "The opener's answer: moving, or already there" }),
    sent: z.boolean().openapi({ description: 'false when the door already was, or was going, where it was asked to: nothing was sent' }),
  })
  .openapi('GarageDoorResult');

export type GarageDoorResultBody = z.infer<typeof GarageDoorResultSchema>;

const CoverMotionSchema = z.enum(['idle', 'opening', 'closing']);

/** GET /devices/:uuid/cover. */
export const CoversSchema = z
  .object({
    uuid: z.string(),
    name: z.string(),
    positioning: z.boolean().openapi({ description: 'Takes any position 0–100; false: only fully open (100) or closed (0)' }),
    covers: z.array(
      z.object({
        channel: z.number().int(),
        position: z.number().int().nullable().openapi({ description: '0 closed … 100 open; null while unknown' }),
        motion: CoverMotionSchema.nullable(),
        at: z.string().nullable(),
      }),
    ),
  })
  .openapi('Covers');

export type CoversBody = z.infer<typeof CoversSchema>;

/** Body of PUT /devices/:uuid/cover/:channel/position. */
export const CoverPositionBodySchema = z
  .object({ position: z.number().int('must be an integer').min(0, 'must be between 0 and 100').max(100, 'must be between 0 and 100') })
  .openapi('CoverPositionRequest');

/** Answer of the cover commands. */
export const CoverResultSchema = z
  .object({
    status: z.literal('success'),
    device: z.string(),
    action: z.enum(['open', 'close', 'stop', 'position']),
    channel: z.number().int(),
    target: z.number().int().nullable(),
    position: z.number().int().nullable().openapi({ description: 'Where the cover was when the command went out (pushes tell where it ends)' }),
    motion: CoverMotionSchema,
    sent: z.boolean(),
  })
  .openapi('CoverResult');

export type CoverResultBody = z.infer<typeof CoverResultSchema>;

const percent = (what: string) =>
  z.number().int('must be an integer').min(1, `must be between 1 and 100`).max(100, `must be between 1 and 100`).openapi({ description: what });
const rgbHex = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'must be a colour as #rrggbb');

const LightFeaturesSchema = z.object({ brightness: z.boolean(), temperature: z.boolean(), rgb: z.boolean() });

/** GET /devices/:uuid/light. */
export const LightsSchema = z
  .object({
    uuid: z.string(),
    name: z.string(),
    lights: z.array(
      z.object({
        channel: z.number().int(),
        brightness: z.number().int().nullable(),
        temperature: z.number().int().nullable().openapi({ description: '1 warm … 100 cold' }),
        rgb: z.string().nullable().openapi({ description: '#rrggbb' }),
        supports: LightFeaturesSchema,
        mode: z
          .enum(['temperature', 'rgb'])
          .nullable()
          .openapi({ description: 'What the light shows: its colour temperature or its colour, the one set last (null until known)' }),
        at: z.string().nullable(),
      }),
    ),
  })
  .openapi('Lights');

export type LightsBody = z.infer<typeof LightsSchema>;

/** Body of PUT /devices/:uuid/light/:channel: what to change, at least one field. */
export const LightChangeBodySchema = z
  .object({
    brightness: percent('1–100 %').optional(),
    temperature: percent('1 warm … 100 cold').optional(),
    rgb: rgbHex.optional().openapi({ description: 'Colour as #rrggbb' }),
  })
  .strict()
  .refine((b) => b.brightness !== undefined || b.temperature !== undefined || b.rgb !== undefined, 'give brightness, temperature or rgb')
  .openapi('LightChange');

/** Answer of PUT /devices/:uuid/light/:channel. */
export const LightResultSchema = z
  .object({
    status: z.literal('success'),
    device: z.string(),
    channel: z.number().int(),
    applied: z.object({ brightness: z.number().int().optional(), temperature: z.number().int().optional(), rgb: z.string().optional() }),
  })
  .openapi('LightResult');

const age = {
  at: z.string().openapi({ description: 'When the device was read (ISO time)' }),
  ageSeconds: z.number().int().openapi({ description: 'How old the reading is: readings are cached, not polled' }),
};

/** GET /devices/:uuid/energy. */
export const PowerSchema = z
  .object({
    uuid: z.string(),
    name: z.string(),
    power: z.number().openapi({ description: 'W' }),
    voltage: z.number().openapi({ description: 'V' }),
    current: z.number().openapi({ description: 'A' }),
    ...age,
  })
  .openapi('Power');

export type PowerBody = z.infer<typeof PowerSchema>;

/** GET /devices/:uuid/energy/daily. */
export const DailyEnergySchema = z
  .object({ uuid: z.string(), name: z.string(), days: z.array(z.object({ date: z.string(), kWh: z.number() })), ...age })
  .openapi('DailyEnergy');

export type DailyEnergyBody = z.infer<typeof DailyEnergySchema>;

/** GET /devices/:uuid/hub. */
export const HubSchema = z
  .object({
    uuid: z.string(),
    name: z.string(),
    subdevices: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        kind: z.enum(['valve', 'sensor', 'other']),
        model: z.string(),
        online: z.boolean(),
        battery: z.number().nullable().openapi({ description: '%' }),
        temperature: z.number().nullable().openapi({ description: '°C' }),
        humidity: z.number().nullable().openapi({ description: '% relative humidity' }),
        on: z.boolean().nullable().openapi({ description: 'Valves: heating allowed' }),
        targetTemperature: z.number().nullable().openapi({ description: 'Valves: °C' }),
        minTemperature: z.number().nullable(),
        maxTemperature: z.number().nullable(),
      }),
    ),
    ...age,
  })
  .openapi('Hub');

export type HubBody = z.infer<typeof HubSchema>;

/** `:uuid` and `:id` of PUT /devices/:uuid/hub/:id. */
export const SubDeviceParamsSchema = UuidParamsSchema.extend({
  id: z.string().min(1).max(64).openapi({ description: 'The id of a device behind the hub, as GET /devices/:uuid/hub lists it' }),
});

/** Body of PUT /devices/:uuid/hub/:id: a valve's on/off and/or target temperature (°C, in steps of 0.5). */
export const ValveChangeBodySchema = z
  .object({
    on: z.boolean().optional(),
    targetTemperature: z
      .number()
      .refine((t) => Number.isInteger(t * 2), 'must be in steps of 0.5')
      .optional()
      .openapi({ description: "°C, within the valve's own range (usually 5–35)" }),
  })
  .strict()
  .refine((b) => b.on !== undefined || b.targetTemperature !== undefined, 'give on or targetTemperature')
  .openapi('ValveChange');

/** Answer of PUT /devices/:uuid/hub/:id. */
export const ValveResultSchema = z
  .object({
    status: z.literal('success'),
    device: z.string(),
    id: z.string(),
    applied: z.object({ on: z.boolean().optional(), targetTemperature: z.number().optional() }),
  })
  .openapi('ValveResult');
