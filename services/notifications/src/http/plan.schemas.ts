import { z } from '@homeops/common';
import { CreateNotificationBodySchema } from './notification.schemas.js';

// What /scheduled and /heartbeats answer: the OpenAPI document's shapes and, through z.infer imported as types only,
// the dashboard's, so a change here breaks its typecheck instead of its users.

/** What a scheduled send or a heartbeat sends: a create body without an attachment (plans are kept as small JSON). */
export const PlannedNotificationSchema = CreateNotificationBodySchema.omit({ attachment: true });

/** GET /scheduled, one entry: a send not gone out yet. */
export const ScheduledViewSchema = z
  .object({ key: z.string(), sendAt: z.string(), createdAt: z.string(), notification: PlannedNotificationSchema })
  .openapi('Scheduled');
export type ScheduledView = z.infer<typeof ScheduledViewSchema>;

/** GET /heartbeats, one entry. */
export const HeartbeatViewSchema = z
  .object({
    name: z.string(),
    intervalSeconds: z.number(),
    graceSeconds: z.number(),
    recoveredNote: z.boolean(),
    state: z.enum(['up', 'down']),
    lastPingAt: z.string(),
    missedAt: z.string().nullable(),
    nextDueAt: z.string().nullable().openapi({ description: 'When it is missed without a ping before (null while down)' }),
    pingPath: z.string(),
    notification: PlannedNotificationSchema,
  })
  .openapi('Heartbeat');
export type HeartbeatView = z.infer<typeof HeartbeatViewSchema>;
