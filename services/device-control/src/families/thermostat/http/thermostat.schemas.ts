import { z } from '@homeops/common';
import { nonNegativeIntText, READING_AGE, UuidParamsSchema } from '../../../http/device.schemas.js';
import { THERMOSTAT_MODES } from '../domain/thermostat.types.js';

const ModeSchema = z.enum(THERMOSTAT_MODES).openapi({
  description: 'heat, cool, economy and manual hold their own target; auto follows the schedule; timer (MTS960) has no target',
});

const OverheatSchema = z
  .object({
    enabled: z.boolean().openapi({ description: 'The protection is turned on' }),
    warning: z.enum(['ok', 'overheating', 'disconnected']).openapi({
      description: 'overheating: the external sensor is above the threshold; disconnected: no external sensor answers',
    }),
    threshold: z.number().openapi({ description: '°C; above it the protection stops the heating' }),
    temperature: z.number().nullable().openapi({ description: "The external (floor) sensor's temperature, °C; null while disconnected" }),
  })
  .openapi('ThermostatOverheat');

/** GET /devices/:uuid/thermostat. */
export const ThermostatsSchema = z
  .object({
    uuid: z.string(),
    name: z.string(),
    thermostats: z.array(
      z.object({
        channel: z.number().int(),
        on: z.boolean(),
        mode: ModeSchema,
        modes: z.array(ModeSchema).openapi({ description: 'The modes this thermostat has' }),
        currentTemperature: z.number().nullable().openapi({ description: '°C' }),
        targetTemperature: z.number().nullable().openapi({ description: '°C; null in a mode without a target' }),
        heating: z.boolean(),
        cooling: z.boolean(),
        minTemperature: z.number().openapi({ description: 'The lowest target it takes, °C' }),
        maxTemperature: z.number().openapi({ description: 'The highest target it takes, °C' }),
        windowOpen: z.boolean().nullable().openapi({ description: 'An open window detected; null where the thermostat has no detection' }),
        overheat: OverheatSchema.nullable().openapi({ description: 'Over-temperature protection (an MTS200B); null where the thermostat has none' }),
        sensor: z
          .enum(['internal', 'external'])
          .nullable()
          .openapi({ description: 'The sensor it regulates on: its own or the external (floor) one; null where it cannot choose' }),
      }),
    ),
    ...READING_AGE,
  })
  .openapi('Thermostats');

/** `:uuid` and `:channel` of PUT /devices/:uuid/thermostat/:channel. */
export const ThermostatParamsSchema = UuidParamsSchema.extend({
  channel: nonNegativeIntText.openapi({ type: 'integer', description: 'The thermostat channel (0 on an mts200 or mts960)' }),
});

/** Body of PUT /devices/:uuid/thermostat/:channel: any of on/off, mode and target (°C, in steps of 0.5). */
export const ThermostatChangeBodySchema = z
  .object({
    on: z.boolean().optional(),
    mode: ModeSchema.optional(),
    targetTemperature: z
      .number()
      .refine((t) => Number.isInteger(t * 2), 'must be in steps of 0.5')
      .optional()
      .openapi({ description: "°C, within the thermostat's range; set in auto, it puts an MTS200 in manual" }),
  })
  .strict()
  .refine((b) => b.on !== undefined || b.mode !== undefined || b.targetTemperature !== undefined, 'give on, mode or targetTemperature')
  .openapi('ThermostatChange');

/** Answer of PUT /devices/:uuid/thermostat/:channel. */
export const ThermostatResultSchema = z
  .object({
    status: z.literal('success'),
    device: z.string(),
    channel: z.number().int(),
    applied: z
      .object({ on: z.boolean().optional(), mode: ModeSchema.optional(), targetTemperature: z.number().optional() })
      .openapi({ description: 'What was set; `mode` is the mode the thermostat is in after it when the command changed it' }),
  })
  .openapi('ThermostatResult');
