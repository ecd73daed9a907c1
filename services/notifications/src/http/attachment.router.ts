import { type Api, z } from '@homeops/common';
import { downloadFilename } from '../domain/file-names.js';
import { readAttachment } from '../domain/notification-queries.use-case.js';
import type { NotificationRoutesDeps } from './notification-routes.deps.js';
import { IdParamsSchema } from './notification.schemas.js';
import { assertMayReachNotification } from './recipient-access.js';

/** Download of a notification's attachment. */
export function registerAttachmentRoutes(api: Api, { ctx }: NotificationRoutesDeps): void {
  api.route({
    method: 'get',
    path: '/notifications/single/{id}/attachment',
    summary: "Download a notification's attachment",
    access: 'notifications:read',
    tags: ['notifications'],
    params: IdParamsSchema,
    responses: {
      200: {
        description: 'The file, with its checked content type',
        contentType: 'application/octet-stream',
        schema: z.string().openapi({ format: 'binary' }),
      },
    },
    errors: ['NOTIFICATION_NOT_FOUND', 'ATTACHMENT_NOT_FOUND'],
    handler: async ({ params, principal }, _req, res) => {
      await assertMayReachNotification(ctx, principal, 'notifications:read', params.id);
      const { meta, data } = await readAttachment(ctx, params.id);
      // Always a download, never rendered inline: the bytes come from whoever created the notification.
      res.attachment(downloadFilename(meta.filename, meta.contentType));
      res.setHeader('Content-Type', meta.contentType);
      res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
      res.send(data);
    },
  });
}
