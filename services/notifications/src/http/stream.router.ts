import { type Api, z } from '@homeops/common';
import type { NotificationRoutesDeps } from './notification-routes.deps.js';
import { RecipientParamsSchema } from './notification.schemas.js';

/** Live feed of one recipient as Server-Sent Events. */
export function registerStreamRoutes(api: Api, { ctx, hub }: NotificationRoutesDeps): void {
  api.route({
    method: 'get',
    path: '/notifications/{recipient}/stream',
    summary: "Live feed of a recipient's notifications (Server-Sent Events)",
    tags: ['notifications'],
    params: RecipientParamsSchema,
    responses: {
      200: {
        description:
          'Events `created`, `read`, `unread`, `delivery` (data: the notification), `deleted` (data: {id}), ' +
          '`read-all` (data: {updated, readAt}); a comment line as heartbeat',
        contentType: 'text/event-stream',
        schema: z.string(),
      },
    },
    handler: ({ params }, req, res) => {
      const stream = hub.open(req, res);
      const unsubscribe = ctx.events.subscribe(params.recipient, ({ type, recipient: _recipient, ...data }) => {
        if (stream.closed) return unsubscribe();
        stream.send(type, 'notification' in data ? data.notification : data);
      });
      res.on('close', unsubscribe);
    },
  });
}
