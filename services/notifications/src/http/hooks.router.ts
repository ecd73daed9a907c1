import { AppError, parseInput, sendJson, z, type Api, type Principal } from '@homeops/common';
import type { AlertHooks, AlertSender, AlertSignal, HookTemplates } from '../domain/alert-hooks.js';
import { CreateNotificationBodySchema, newNotificationOf } from './notification.schemas.js';
import { assertMaySendPriority, type SendRates } from './send-limits.js';

export interface HookRoutesDeps {
  alerts: AlertHooks;
  templates: HookTemplates;
  /** A hook call spends one send of a token's rate, whatever it sends. */
  sendRates: SendRates;
}

const HookParamsSchema = z.object({ template: z.string().min(1).max(64) });
const HookQuerySchema = z.object({
  recipient: z.string().min(1).max(256).optional(),
  priority: z.coerce.number().int().min(-2).max(2).optional(),
  sound: z.string().min(1).max(64).optional(),
  resolvedNote: z.enum(['true', 'false']).optional(),
});
const HookBodySchema = z.looseObject({}).openapi({ description: "The monitoring tool's own JSON (see docs/webhooks.md)" });

const HookResultSchema = z
  .object({
    created: z.array(z.string()).openapi({ description: 'Ids of the notifications sent (firing alerts, resolved notes)' }),
    cancelled: z.array(z.string()).openapi({ description: 'Ids of the ringing emergencies cancelled because their alert resolved' }),
    alreadyRinging: z.number().int().openapi({ description: 'Firing alerts whose emergency still rings: not sent again' }),
    notYours: z
      .number()
      .int()
      .openapi({ description: 'Resolved alerts whose ringing emergency another sender fired: not ended (only that sender or an admin ends it)' }),
  })
  .openapi('HookResult');

/** Who fired an alert, as its record keeps it: the token's id (never its secret), or the kind of key. */
export function alertSenderOf(principal: Principal): AlertSender {
  const id = principal.kind === 'token' ? `token:${principal.tokenId ?? ''}` : principal.kind === 'key' ? 'api-key' : principal.kind;
  return { id, resolvesAny: principal.isAdmin };
}

/** POST /hooks/{template}: a monitoring tool's webhook, mapped by a template to notifications with their life cycle. */
export function registerHookRoutes(api: Api, deps: HookRoutesDeps): void {
  api.route({
    method: 'post',
    path: '/hooks/{template}',
    summary:
      'Receives a monitoring webhook (alertmanager, grafana, uptime-kuma, generic or your own template); a resolved alert ends the ringing emergency the same sender (or any, for an admin) fired',
    access: 'notifications:send',
    tags: ['hooks'],
    params: HookParamsSchema,
    query: HookQuerySchema,
    // Documented only: the template reads the body (and says what it lacks); a copy of it through a schema is waste.
    bodyContentTypes: { 'application/json': HookBodySchema },
    errors: [
      'HOOK_TEMPLATE_NOT_FOUND',
      'ALERT_FIRED_BY_ANOTHER',
      'RECIPIENT_NOT_MAPPED',
      'STORAGE_UNAVAILABLE',
      'TOO_MANY_CREATES',
      'MALFORMED_JSON',
      'JSON_TOO_DEEP',
      'PAYLOAD_TOO_LARGE',
    ],
    responses: {
      200: { description: 'Nothing new was sent (only cancels, or alerts already ringing)', schema: HookResultSchema },
      201: { description: 'At least one notification was sent', schema: HookResultSchema },
    },
    handler: async ({ params, query, principal }, req, res) => {
      const body: unknown = req.body;
      const { templates } = deps;
      if (!templates.has(params.template)) {
        throw new AppError('HOOK_TEMPLATE_NOT_FOUND', `No webhook template "${params.template}" (there are ${templates.names().join(', ')})`);
      }
      const rendered = templates.render(params.template, body, query);
      const signals: AlertSignal[] = rendered.map((alert) => ({
        state: alert.state,
        identity: alert.identity,
        notification: newNotificationOf(parseInput(CreateNotificationBodySchema, alert.body, 'body')),
      }));
      for (const signal of signals) {
        principal.requireRecipient('notifications:send', signal.notification.recipient);
        for (const step of signal.notification.escalate ?? []) principal.requireRecipient('notifications:send', step.recipient);
        assertMaySendPriority(principal, signal.notification.priority);
      }
      deps.sendRates.take(principal);
      const resolvedNote = query.resolvedNote === undefined ? templates.sendsResolvedNote(params.template) : query.resolvedNote === 'true';
      const outcome = await deps.alerts.receive(params.template, signals, { resolvedNote, sender: alertSenderOf(principal) });
      sendJson(res, outcome.created.length > 0 ? 201 : 200, {
        created: outcome.created.map((r) => r.id),
        cancelled: outcome.cancelled.map((r) => r.id),
        alreadyRinging: outcome.alreadyRinging,
        notYours: outcome.notYours,
      });
    },
  });
}
