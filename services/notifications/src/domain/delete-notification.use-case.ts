import { AppError } from '@homeops/common/core';
import type { NotificationContext } from './notification-context.js';
import type { NotificationRecord } from './notification.js';

/** Removes the attachment of removed records; a leftover file is logged, never fatal. */
export async function removeAttachments(ctx: NotificationContext, records: NotificationRecord[]): Promise<void> {
  for (const record of records) {
    if (!record.attachment) continue;
    try {
      await ctx.attachments.remove(record.id);
    } catch (err) {
      ctx.logger.warn({ err, id: record.id }, 'attachment of a removed notification could not be deleted');
    }
  }
}

/** Deletes the record (durably) and then its attachment; NOTIFICATION_NOT_FOUND for an unknown id. */
export async function deleteNotification(ctx: NotificationContext, id: string): Promise<void> {
  const removed = await ctx.repository.remove(id);
  if (!removed) throw new AppError('NOTIFICATION_NOT_FOUND', `No notification with id ${id}`);
  await removeAttachments(ctx, [removed]);
  ctx.events.publish({ type: 'deleted', recipient: removed.recipient, id });
}
