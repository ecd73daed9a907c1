import { AppError, sendJson, z, type Api } from '@homeops/common';
import { createNotification } from '../domain/create-notification.use-case.js';
import { deleteNotification } from '../domain/delete-notification.use-case.js';
import { listNotifications } from '../domain/notification-queries.use-case.js';
import { resendNotification } from '../domain/resend-notification.use-case.js';
import { nextPageLink } from './next-page-link.js';
import { notificationView, notificationViews } from './notification-view.js';
import type { NotificationRoutesDeps } from './notification-routes.deps.js';
import { assertMayReachNotification, mayReplacePlan, reachableNotification } from './recipient-access.js';
import { assertMaySendPriority } from './send-limits.js';
import {
  CreateNotificationBodySchema,
  CreateNotificationMultipartSchema,
  IdParamsSchema,
  ListQuerySchema,
  newNotificationOf,
  RecipientParamsSchema,
} from './notification.schemas.js';
import { NotificationSchema } from './response.schemas.js';

const tags = ['notifications'];

/** Create, list, fetch and delete notifications. */
/** Send later instead of now: the query of POST /notifications, as PUT /scheduled/{key} takes it in the body. */
const LaterQuerySchema = z
  .object({
    sendAt: z.iso.datetime({ offset: true }).optional().openapi({ description: 'Store it as a scheduled send going out then (at most 7 days ahead)' }),
    delaySeconds: z.coerce
      .number()
      .int()
      .min(0)
      .max(7 * 86_400)
      .optional()
      .openapi({ description: 'Or this many seconds from now' }),
    key: z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,128}$/)
      .optional()
      .openapi({ description: "The scheduled send's key (GET, change or cancel it at /scheduled/{key}); default a new one" }),
  })
  .refine((q) => q.sendAt === undefined || q.delaySeconds === undefined, 'give sendAt or delaySeconds, not both');

export function registerNotificationRoutes(api: Api, { ctx, create, planner, sendRates }: NotificationRoutesDeps): void {
  api.route({
    method: 'post',
    path: '/notifications',
    summary: 'Store a notification and send it through Pushover',
    access: 'notifications:send',
    tags,
    query: LaterQuerySchema,
    body: CreateNotificationBodySchema,
    bodyContentTypes: { 'multipart/form-data': CreateNotificationMultipartSchema },
    responses: {
      201: { description: 'Stored; delivery holds the outcome of the first attempt', schema: NotificationSchema },
      202: { description: 'With sendAt or delaySeconds: scheduled (see /scheduled/{key}), not stored in the history yet' },
    },
    errors: [
      'RECIPIENT_NOT_MAPPED',
      'LIMIT_REACHED',
      'TOO_MANY_CREATES',
      'MALFORMED_JSON',
      'JSON_TOO_DEEP',
      'PAYLOAD_TOO_LARGE',
      'UNSUPPORTED_MEDIA_TYPE',
      'SERVER_BUSY',
      'STORAGE_FULL',
      'STORAGE_UNAVAILABLE',
    ],
    handler: async ({ body, query, principal }, _req, res) => {
      principal.requireRecipient('notifications:send', body.recipient);
      assertMaySendPriority(principal, body.priority);
      sendRates.take(principal);
      for (const step of body.escalate ?? []) principal.requireRecipient('notifications:send', step.recipient);
      const later = query.sendAt !== undefined || query.delaySeconds !== undefined;
      if (later && body.escalate !== undefined) {
        throw new AppError('VALIDATION_FAILED', 'A scheduled send cannot escalate', {
          details: [{ path: 'body.escalate', message: 'is not kept for a scheduled send; send the emergency now to escalate it' }],
        });
      }
      if (later) {
        const { attachment, ...planned } = body;
        if (attachment !== undefined) {
          throw new AppError('VALIDATION_FAILED', 'A scheduled send takes no attachment', {
            details: [{ path: 'body.attachment', message: 'is not kept for a scheduled send; send it now, or without the attachment' }],
          });
        }
        const key = query.key ?? `n-${ctx.clock.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
        const when = query.sendAt !== undefined ? { at: Date.parse(query.sendAt) } : { delayMs: query.delaySeconds! * 1000 };
        const plan = await planner.schedule(key, when, planned, mayReplacePlan(principal));
        res.setHeader('Location', `/scheduled/${key}`);
        return sendJson(res, 202, { key, sendAt: new Date((plan as { sendAt: number }).sendAt).toISOString(), notification: planned });
      }
      // createNotification copies what it keeps.
      const input = newNotificationOf(body);
      const record = body.escalate === undefined ? await createNotification(ctx, create, input) : await planner.escalate(input);
      // Ids are Crockford base32: the path needs no encoding.
      res.setHeader('Location', `/notifications/single/${record.id}`);
      sendJson(res, 201, notificationView(record));
    },
  });

  api.route({
    method: 'get',
    path: '/notifications/single/{id}',
    summary: 'One notification',
    access: 'notifications:read',
    tags,
    params: IdParamsSchema,
    responses: { 200: { description: 'The notification', schema: NotificationSchema } },
    errors: ['NOTIFICATION_NOT_FOUND'],
    handler: async ({ params, principal }, _req, res) => {
      res.json(notificationView(await reachableNotification(ctx, principal, 'notifications:read', params.id)));
    },
  });

  api.route({
    method: 'get',
    path: '/notifications/{recipient}',
    summary: "A recipient's notifications, newest first",
    access: 'notifications:read',
    tags,
    params: RecipientParamsSchema,
    query: ListQuerySchema,
    responses: {
      200: { description: 'One page; X-Total-Count, X-Unread-Count and a Link rel="next" header', schema: NotificationSchema.array() },
    },
    errors: ['NOTIFICATION_NOT_FOUND'],
    handler: async ({ params, query, principal }, _req, res) => {
      principal.requireRecipient('notifications:read', params.recipient);
      const page = await listNotifications(ctx, {
        recipient: params.recipient,
        unreadOnly: query.unread,
        limit: query.limit,
        before: query.before,
      });
      res.setHeader('X-Total-Count', String(page.total));
      res.setHeader('X-Unread-Count', String(page.unread));
      if (page.nextCursor) res.setHeader('Link', nextPageLink(params.recipient, query, page.nextCursor));
      res.json(notificationViews(page.items));
    },
  });

  api.route({
    method: 'post',
    path: '/notifications/{id}/resend',
    summary: 'Send a notification again whose delivery failed, expired or is unknown',
    access: 'notifications:send',
    tags,
    params: IdParamsSchema,
    responses: { 200: { description: 'Resent; delivery holds the outcome of the first attempt', schema: NotificationSchema } },
    errors: ['NOTIFICATION_NOT_FOUND', 'NOTIFICATION_NOT_RESENDABLE', 'RECIPIENT_NOT_MAPPED', 'STORAGE_UNAVAILABLE', 'TOO_MANY_CREATES'],
    handler: async ({ params, principal }, _req, res) => {
      const record = await reachableNotification(ctx, principal, 'notifications:send', params.id);
      assertMaySendPriority(principal, record.priority);
      sendRates.take(principal);
      res.json(notificationView(await resendNotification(ctx, create, params.id)));
    },
  });

  api.route({
    method: 'delete',
    path: '/notifications/{id}',
    summary: 'Delete a notification and its attachment',
    access: 'notifications:read',
    tags,
    params: IdParamsSchema,
    responses: { 204: { description: 'Deleted' } },
    errors: ['NOTIFICATION_NOT_FOUND', 'STORAGE_UNAVAILABLE'],
    handler: async ({ params, principal }, _req, res) => {
      await assertMayReachNotification(ctx, principal, 'notifications:read', params.id);
      await deleteNotification(ctx, params.id);
      res.status(204).end();
    },
  });
}
