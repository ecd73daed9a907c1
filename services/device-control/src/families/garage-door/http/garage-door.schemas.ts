import { z } from '@homeops/common';

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
