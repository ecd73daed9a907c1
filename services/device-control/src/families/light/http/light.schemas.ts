import { z } from '@homeops/common';

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
