import { AppError, isoNow } from '@homeops/common/core';
import type { NotificationContext } from './notification-context.js';
import { readSince, UNREAD, type NotificationRecord } from './notification.js';

async function setRead(ctx: NotificationContext, id: string, read: boolean): Promise<NotificationRecord> {
  const current = await ctx.repository.get(id);
  if (!current) throw new AppError('NOTIFICATION_NOT_FOUND', `No notification with id ${id}`);
  // Idempotent: repeating the call keeps the first readAt and writes nothing.
  if (current.read === read) return current;
  const updated = await ctx.repository.update(id, read ? readSince(isoNow(ctx.clock)) : UNREAD);
  if (!updated) throw new AppError('NOTIFICATION_NOT_FOUND', `No notification with id ${id}`);
  ctx.events.publish({ type: read ? 'read' : 'unread', recipient: updated.recipient, notification: updated });
  return updated;
}

/** Marks the notification read (keeps the first readAt when it already was); persisted before resolving. */
export function markRead(ctx: NotificationContext, id: string): Promise<NotificationRecord> {
  return setRead(ctx, id, true);
}

/** Marks the notification unread again and clears readAt. */
export function markUnread(ctx: NotificationContext, id: string): Promise<NotificationRecord> {
  return setRead(ctx, id, false);
}

/** Marks every unread notification of the recipient read; resolves how many changed. */
export async function markAllRead(ctx: NotificationContext, recipient: string): Promise<{ updated: number }> {
  const readAt = isoNow(ctx.clock);
  const updated = await ctx.repository.markAllRead(recipient, readAt);
  if (updated > 0) ctx.events.publish({ type: 'read-all', recipient, updated, readAt });
  return { updated };
}
