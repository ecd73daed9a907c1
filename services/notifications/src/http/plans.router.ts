import { z, type Api, type Principal } from '@homeops/common';
import type { Heartbeat, ScheduledSend, StoredPlan } from '../domain/plans/plan.js';
import { dueAt } from '../domain/plans/plan.js';
import { HEARTBEAT_INTERVAL_MS, MAX_SCHEDULE_MS, planNotFound, type Planner } from '../domain/plans/planner.js';
import { assertMaySendPriority, type SendRates } from './send-limits.js';
import { HeartbeatViewSchema, PlannedNotificationSchema, ScheduledViewSchema, type HeartbeatView, type ScheduledView } from './plan.schemas.js';
import { mayCancelPlan, mayReplacePlan } from './recipient-access.js';

const KeyParams = z.object({ key: z.string().regex(/^[A-Za-z0-9._-]{1,128}$/, 'must be 1 to 128 letters, digits, dots, dashes or underscores') });
const NameParams = z.object({ name: z.string().regex(/^[A-Za-z0-9._-]{1,128}$/, 'must be 1 to 128 letters, digits, dots, dashes or underscores') });

const ScheduleBodySchema = PlannedNotificationSchema.extend({
  sendAt: z.iso
    .datetime({ offset: true })
    .optional()
    .openapi({ description: `When it goes out (at most ${MAX_SCHEDULE_MS / 86_400_000} days ahead)` }),
  delaySeconds: z
    .number()
    .int()
    .min(0)
    .max(MAX_SCHEDULE_MS / 1000)
    .optional()
    .openapi({ description: 'Or: this many seconds from now' }),
})
  .strict()
  .refine((b) => (b.sendAt === undefined) !== (b.delaySeconds === undefined), 'give sendAt or delaySeconds, one of them')
  .openapi('ScheduleBody');

const HeartbeatBodySchema = z
  .object({
    intervalSeconds: z
      .number()
      .int()
      .min(HEARTBEAT_INTERVAL_MS.min / 1000)
      .max(HEARTBEAT_INTERVAL_MS.max / 1000),
    graceSeconds: z.number().int().min(0).max(86_400).default(0),
    recoveredNote: z.boolean().default(false).openapi({ description: 'The ping after a miss also sends a quiet "Resolved: …" note' }),
    notification: PlannedNotificationSchema.openapi({ description: 'What to send when a ping is late (priority 2 rings until the next ping)' }),
  })
  .strict()
  .openapi('HeartbeatBody');

const iso = (ms: number) => new Date(ms).toISOString();

function scheduledView(plan: ScheduledSend): ScheduledView {
  return { key: plan.key, sendAt: iso(plan.sendAt), createdAt: iso(plan.createdAt), notification: plan.notification };
}

function heartbeatView(plan: Heartbeat): HeartbeatView {
  const due = dueAt(plan);
  return {
    name: plan.key,
    intervalSeconds: plan.intervalMs / 1000,
    graceSeconds: plan.graceMs / 1000,
    recoveredNote: plan.recoveredNote,
    state: plan.status.state,
    lastPingAt: iso(plan.lastPingAt),
    missedAt: plan.status.state === 'down' ? iso(plan.status.missedAt) : null,
    nextDueAt: plan.status.state === 'up' && Number.isFinite(due) ? iso(due) : null,
    pingPath: `/heartbeats/${encodeURIComponent(plan.key)}/ping`,
    notification: plan.notification,
  };
}

/** Plans the caller may see: those of the recipients its notifications:read reaches. */
function readable<P extends StoredPlan>(principal: Principal, plans: P[]): P[] {
  return plans.filter((plan) => principal.mayReach('notifications:read', plan.notification.recipient));
}

/** A heartbeat of a recipient the caller may not send to is as unknown to it as one that does not exist. */
async function ownHeartbeat(planner: Planner, principal: Principal, key: string): Promise<void> {
  const plan = await planner.get('heartbeat', key);
  if (!plan) throw planNotFound('heartbeat', key);
  mayCancelPlan(principal)(plan);
}

const BODY_ERRORS = ['MALFORMED_JSON', 'JSON_TOO_DEEP', 'PAYLOAD_TOO_LARGE', 'STORAGE_UNAVAILABLE'] as const;

/** /scheduled and /heartbeats: sends planned ahead, and dead man's switches that send when a ping is late. */
export function registerPlanRoutes(api: Api, planner: Planner, sendRates: SendRates): void {
  api.route({
    method: 'get',
    path: '/scheduled',
    summary: 'Notifications scheduled ahead and not sent yet',
    access: 'notifications:read',
    tags: ['scheduled'],
    responses: { 200: { description: 'Scheduled sends, soonest first', schema: z.object({ scheduled: z.array(ScheduledViewSchema) }) } },
    handler: async ({ principal }, _req, res) => {
      const sends = readable(
        principal,
        (await planner.list()).filter((p): p is StoredPlan & ScheduledSend => p.kind === 'send'),
      );
      res.json({ scheduled: sends.sort((a, b) => a.sendAt - b.sendAt).map(scheduledView) });
    },
  });
  api.route({
    method: 'put',
    path: '/scheduled/{key}',
    summary: 'Schedules a notification under your key (sendAt or delaySeconds), or changes it before it goes out',
    access: 'notifications:send',
    tags: ['scheduled'],
    params: KeyParams,
    body: ScheduleBodySchema,
    errors: ['VALIDATION_FAILED', 'LIMIT_REACHED', 'SERVER_BUSY', 'TOO_MANY_CREATES', ...BODY_ERRORS],
    responses: { 200: { description: 'The scheduled send', schema: ScheduledViewSchema } },
    handler: async ({ params, body, principal }, _req, res) => {
      const { sendAt, delaySeconds, ...notification } = body;
      principal.requireRecipient('notifications:send', notification.recipient);
      assertMaySendPriority(principal, notification.priority);
      sendRates.take(principal);
      const when = sendAt !== undefined ? { at: Date.parse(sendAt) } : { delayMs: delaySeconds! * 1000 };
      res.json(scheduledView((await planner.schedule(params.key, when, notification, mayReplacePlan(principal))) as ScheduledSend));
    },
  });
  api.route({
    method: 'delete',
    path: '/scheduled/{key}',
    summary: 'Cancels a scheduled notification before it goes out',
    access: 'notifications:send',
    tags: ['scheduled'],
    params: KeyParams,
    errors: ['PLAN_NOT_FOUND', 'SERVER_BUSY', 'STORAGE_UNAVAILABLE'],
    responses: { 204: { description: 'Cancelled: it will not go out' } },
    handler: async ({ params, principal }, _req, res) => {
      await planner.cancel('send', params.key, mayCancelPlan(principal));
      res.status(204).end();
    },
  });
  api.route({
    method: 'get',
    path: '/heartbeats',
    summary: 'The heartbeats, whether each is up or down, and when each is due',
    access: 'notifications:read',
    tags: ['heartbeats'],
    responses: { 200: { description: 'Every heartbeat', schema: z.object({ heartbeats: z.array(HeartbeatViewSchema) }) } },
    handler: async ({ principal }, _req, res) => {
      const beats = readable(
        principal,
        (await planner.list()).filter((p): p is StoredPlan & Heartbeat => p.kind === 'heartbeat'),
      );
      res.json({ heartbeats: beats.sort((a, b) => a.key.localeCompare(b.key)).map(heartbeatView) });
    },
  });
  api.route({
    method: 'put',
    path: '/heartbeats/{name}',
    summary: 'Creates or changes a heartbeat: expected every intervalSeconds (plus graceSeconds), it sends its notification once when a ping is late',
    access: 'notifications:send',
    tags: ['heartbeats'],
    params: NameParams,
    body: HeartbeatBodySchema,
    errors: ['VALIDATION_FAILED', 'LIMIT_REACHED', 'SERVER_BUSY', ...BODY_ERRORS],
    responses: { 200: { description: 'The heartbeat', schema: HeartbeatViewSchema } },
    handler: async ({ params, body, principal }, _req, res) => {
      principal.requireRecipient('notifications:send', body.notification.recipient);
      assertMaySendPriority(principal, body.notification.priority);
      const plan = await planner.heartbeat(
        params.name,
        {
          intervalMs: body.intervalSeconds * 1000,
          graceMs: body.graceSeconds * 1000,
          notification: body.notification,
          recoveredNote: body.recoveredNote,
        },
        mayReplacePlan(principal),
      );
      res.json(heartbeatView(plan as Heartbeat));
    },
  });
  for (const method of ['get', 'post'] as const) {
    api.route({
      method,
      path: '/heartbeats/{name}/ping',
      summary: 'Pings a heartbeat (cron, Uptime Kuma push monitors): up again; after a miss it cancels the alarm',
      access: 'notifications:send',
      tags: ['heartbeats'],
      params: NameParams,
      errors: ['PLAN_NOT_FOUND', 'SERVER_BUSY', 'STORAGE_UNAVAILABLE'],
      // A GET ping is for cron and curl; an <img> on another site's page must not end an alarm.
      changesState: true,
      responses: { 200: { description: 'The heartbeat after the ping', schema: HeartbeatViewSchema } },
      handler: async ({ params, principal }, _req, res) => {
        await ownHeartbeat(planner, principal, params.name);
        res.json(heartbeatView((await planner.ping(params.name)) as Heartbeat));
      },
    });
  }
  api.route({
    method: 'delete',
    path: '/heartbeats/{name}',
    summary: 'Removes a heartbeat',
    access: 'notifications:send',
    tags: ['heartbeats'],
    params: NameParams,
    errors: ['PLAN_NOT_FOUND', 'SERVER_BUSY', 'STORAGE_UNAVAILABLE'],
    responses: { 204: { description: 'Removed' } },
    handler: async ({ params, principal }, _req, res) => {
      await planner.cancel('heartbeat', params.name, mayCancelPlan(principal));
      res.status(204).end();
    },
  });
}
