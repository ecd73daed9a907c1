import { type Api, z } from '@homeops/common';
import type { NotificationRoutesDeps } from './notification-routes.deps.js';
import { readableBy } from './recipient-access.js';
import { RecipientSummarySchema } from './response.schemas.js';

/** GET /recipients: who has a history, with unread counts (the dashboard's picker and badges). */
export function registerRecipientRoutes(api: Api, { ctx }: NotificationRoutesDeps): void {
  api.route({
    method: 'get',
    path: '/recipients',
    summary: 'Every recipient with stored notifications the caller may read, by name, with total and unread counts',
    access: 'notifications:read',
    tags: ['notifications'],
    responses: { 200: { description: 'The recipients', schema: z.array(RecipientSummarySchema) } },
    handler: async ({ principal }, _req, res) => {
      const readable = readableBy(principal);
      res.json((await ctx.repository.recipients()).filter((summary) => readable(summary.recipient)));
    },
  });
}
