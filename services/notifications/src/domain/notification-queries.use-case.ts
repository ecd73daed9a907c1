import { AppError } from '@homeops/common/core';
import type { NotificationContext } from './notification-context.js';
import type { NotificationPage } from './notification-repository.js';
import type { AttachmentMeta, NotificationRecord } from './notification.js';

/** How a caller pages through a recipient's history. */
export interface ListNotificationsInput {
  recipient: string;
  unreadOnly: boolean;
  limit: number;
  before?: string | undefined;
}

/** One page of a recipient's history, newest first; `before` must name a stored notification of that recipient. */
export async function listNotifications(ctx: NotificationContext, input: ListNotificationsInput): Promise<NotificationPage> {
  if (input.before !== undefined) {
    const cursor = await ctx.repository.get(input.before);
    if (!cursor || cursor.recipient !== input.recipient) {
      throw new AppError('NOTIFICATION_NOT_FOUND', `The cursor ${input.before} is not a notification of this recipient`, {
        solution: 'Use the cursor from the Link header of the previous page, or start without "before"',
      });
    }
  }
  return ctx.repository.list(input.recipient, {
    limit: input.limit,
    ...(input.unreadOnly ? { unreadOnly: true } : {}),
    ...(input.before !== undefined ? { before: input.before } : {}),
  });
}

/** The stored notification, or NOTIFICATION_NOT_FOUND. */
export async function getNotification(ctx: NotificationContext, id: string): Promise<NotificationRecord> {
  const record = await ctx.repository.get(id);
  if (!record) throw new AppError('NOTIFICATION_NOT_FOUND', `No notification with id ${id}`);
  return record;
}

/** The attachment's bytes and metadata, or a 404 code saying which part is missing. */
export async function readAttachment(ctx: NotificationContext, id: string): Promise<{ meta: AttachmentMeta; data: Buffer }> {
  const record = await getNotification(ctx, id);
  const data = record.attachment ? await ctx.attachments.read(id) : undefined;
  if (!record.attachment || !data) throw new AppError('ATTACHMENT_NOT_FOUND', `Notification ${id} has no attachment`);
  return { meta: record.attachment, data };
}
