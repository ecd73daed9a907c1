import type { Api } from '@homeops/common';
import { markAllRead, markRead, markUnread } from '../domain/read-status.use-case.js';
import type { NotificationRoutesDeps } from './notification-routes.deps.js';
import { IdParamsSchema, ReadAllResultSchema, RecipientParamsSchema } from './notification.schemas.js';
import { notificationView } from './notification-view.js';
import { assertMayReachNotification } from './recipient-access.js';
import { NotificationSchema } from './response.schemas.js';

const tags = ['notifications'];

/** Read/unread status: one notification or all of a recipient's. */
export function registerReadStatusRoutes(api: Api, { ctx }: NotificationRoutesDeps): void {
  api.route({
    method: 'patch',
    path: '/notifications/{id}/read',
    summary: 'Mark a notification read (idempotent; keeps the first readAt)',
    access: 'notifications:read',
    tags,
    params: IdParamsSchema,
    responses: { 200: { description: 'The notification, read', schema: NotificationSchema } },
    errors: ['NOTIFICATION_NOT_FOUND', 'STORAGE_UNAVAILABLE'],
    handler: async ({ params, principal }, _req, res) => {
      await assertMayReachNotification(ctx, principal, 'notifications:read', params.id);
      res.json(notificationView(await markRead(ctx, params.id)));
    },
  });

  api.route({
    method: 'patch',
    path: '/notifications/{id}/unread',
    summary: 'Mark a notification unread again (idempotent)',
    access: 'notifications:read',
    tags,
    params: IdParamsSchema,
    responses: { 200: { description: 'The notification, unread', schema: NotificationSchema } },
    errors: ['NOTIFICATION_NOT_FOUND', 'STORAGE_UNAVAILABLE'],
    handler: async ({ params, principal }, _req, res) => {
      await assertMayReachNotification(ctx, principal, 'notifications:read', params.id);
      res.json(notificationView(await markUnread(ctx, params.id)));
    },
  });

  api.route({
    method: 'post',
    path: '/notifications/{recipient}/read-all',
    summary: "Mark all of a recipient's notifications read",
    access: 'notifications:read',
    tags,
    params: RecipientParamsSchema,
    responses: { 200: { description: 'How many changed', schema: ReadAllResultSchema } },
    errors: ['STORAGE_UNAVAILABLE'],
    handler: async ({ params, principal }, _req, res) => {
      principal.requireRecipient('notifications:read', params.recipient);
      res.json(await markAllRead(ctx, params.recipient));
    },
  });
}
