import { z } from '@homeops/common';
import type { DeviceFields } from '../../device-family.js';

declare module '../../../http/device.schemas.js' {
  interface FamilyDeviceFields {
    /** Covers only. */
    coverPositioning: boolean;
  }
}

/** A cover's field in GET /devices. */
export const COVER_DEVICE_FIELDS: DeviceFields = {
  shape: { coverPositioning: z.boolean().optional().openapi({ description: 'Covers only: takes any position 0–100 (else only fully open or closed)' }) },
  of: (d) => (d.capabilities.includes('cover') ? { coverPositioning: d.coverPositioning ?? false } : {}),
};

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
