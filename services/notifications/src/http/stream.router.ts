import { type Api, lastEventIdOf, z } from '@homeops/common';
import { EVENT_REPLAY_SIZE, type NotificationEvent } from '../domain/notification-events.js';
import type { NotificationRoutesDeps } from './notification-routes.deps.js';
import { RecipientParamsSchema } from './notification.schemas.js';
import { notificationView } from './notification-view.js';
import { readableBy } from './recipient-access.js';

const EVENTS_DESCRIPTION =
  'Events `created`, `read`, `unread`, `delivery`, `acknowledged` (an emergency acknowledged on a phone), ' +
  '`alarm-ended` (an emergency expired or cancelled) (data: the notification), `deleted` (data: {id}), ' +
  '`read-all` (data: {updated, readAt}); a comment line as heartbeat. Each event has an id: reconnect with ' +
  `Last-Event-ID to get what you missed (the last ${EVENT_REPLAY_SIZE} events of all recipients are kept); a \`reset\` ` +
  'event says too much was missed: reload.';

/** Live feeds as Server-Sent Events: of one recipient, and of every recipient (GET /events). */
export function registerStreamRoutes(api: Api, { ctx, hub }: NotificationRoutesDeps): void {
  api.route({
    method: 'get',
    path: '/notifications/{recipient}/stream',
    summary: "Live feed of a recipient's notifications (Server-Sent Events)",
    access: 'notifications:read',
    tags: ['notifications'],
    errors: ['TOO_MANY_STREAMS'],
    params: RecipientParamsSchema,
    responses: {
      200: {
        description: EVENTS_DESCRIPTION,
        contentType: 'text/event-stream',
        schema: z.string(),
      },
    },
    handler: ({ params, principal }, req, res) => {
      principal.requireRecipient('notifications:read', params.recipient);
      const stream = hub.open(req, res);
      const send = ({ type, recipient: _recipient, ...data }: NotificationEvent, id: string) =>
        stream.send(type, 'notification' in data ? notificationView(data.notification) : data, id);
      const lastEventId = lastEventIdOf(req);
      if (lastEventId !== undefined) {
        const missed = ctx.events.missedSince(params.recipient, lastEventId);
        if (missed === undefined) stream.send('reset', { reason: 'the events since your Last-Event-ID are no longer kept: reload the list' });
        else for (const { id, data } of missed) send(data, id);
      }
      const unsubscribe = ctx.events.subscribe(params.recipient, (event, id) => {
        if (stream.closed) return unsubscribe();
        send(event, id);
      });
      res.on('close', unsubscribe);
    },
  });

  api.route({
    method: 'get',
    path: '/events',
    summary: "Live feed of every recipient's notifications the caller may read (Server-Sent Events): what the inbox page follows",
    access: 'notifications:read',
    tags: ['notifications'],
    errors: ['TOO_MANY_STREAMS'],
    responses: {
      200: {
        description: `${EVENTS_DESCRIPTION} As on a recipient's stream, with the recipient in every event's data (\`deleted\`: {recipient, id}; \`read-all\`: {recipient, updated, readAt}).`,
        contentType: 'text/event-stream',
        schema: z.string(),
      },
    },
    handler: ({ principal }, req, res) => {
      const stream = hub.open(req, res);
      // A token limited to some inboxes gets their events only, replayed ones included.
      const readable = readableBy(principal);
      const send = (event: NotificationEvent, id: string) => {
        if (!readable(event.recipient)) return;
        const { type, ...data } = event;
        stream.send(type, 'notification' in data ? notificationView(data.notification) : data, id);
      };
      const lastEventId = lastEventIdOf(req);
      if (lastEventId !== undefined) {
        const missed = ctx.events.missedSince(undefined, lastEventId);
        if (missed === undefined) stream.send('reset', { reason: 'the events since your Last-Event-ID are no longer kept: reload the list' });
        else for (const { id, data } of missed) send(data, id);
      }
      const unsubscribe = ctx.events.subscribeAll((event, id) => {
        if (stream.closed) return unsubscribe();
        send(event, id);
      });
      res.on('close', unsubscribe);
    },
  });
}
