import { z } from '@homeops/common';
import { READING_AGE, UuidParamsSchema } from '../../../http/device.schemas.js';

/** GET /devices/:uuid/hub. */
export const HubSchema = z
  .object({
    uuid: z.string(),
    name: z.string(),
    subdevices: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        kind: z.enum(['valve', 'sensor', 'leak', 'smoke', 'contact', 'other']).openapi({
          description: 'valve (mts100), sensor (temperature/humidity, ms100), leak (ms400), smoke (gs559), contact (door/window, ms200)',
        }),
        model: z.string(),
        online: z.boolean(),
        battery: z.number().nullable().openapi({ description: '%' }),
        temperature: z.number().nullable().openapi({ description: '°C' }),
        humidity: z.number().nullable().openapi({ description: '% relative humidity' }),
        on: z.boolean().nullable().openapi({ description: 'Valves: heating allowed' }),
        targetTemperature: z.number().nullable().openapi({ description: 'Valves: °C' }),
        minTemperature: z.number().nullable(),
        maxTemperature: z.number().nullable(),
        leak: z.boolean().nullable().openapi({ description: 'Leak sensors: water found' }),
        smoke: z
          .enum(['clear', 'alarm', 'muted', 'test', 'fault'])
          .nullable()
          .openapi({ description: 'Smoke alarms: alarm is smoke or heat, muted an alarm silenced at the device, fault its error codes' }),
        open: z.boolean().nullable().openapi({ description: 'Door/window sensors: open' }),
      }),
    ),
    ...READING_AGE,
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
