import { AppError, isoNow } from '@homeops/common/core';
import type { CreateDeps } from './create-notification.use-case.js';
import type { NotificationContext } from './notification-context.js';
import type { Delivery, Emergency, NotificationRecord } from './notification.js';

/** Deliveries that ended without reaching a phone for sure. */
const RESENDABLE = new Set<Delivery['status']>(['failed', 'expired', 'unknown']);

/**
 * Sends a notification whose delivery failed, expired or is unknown once more, as a new delivery (attempts from 0,
 * its maximum age counted from now, an emergency's alarm state cleared); resolves after the first attempt.
 */
export async function resendNotification(ctx: NotificationContext, deps: CreateDeps, id: string): Promise<NotificationRecord> {
  const record = await ctx.repository.get(id);
  if (!record) throw new AppError('NOTIFICATION_NOT_FOUND', `No notification with id ${id}`);
  if (!deps.deliveryEnabled || !RESENDABLE.has(record.delivery.status)) {
    throw new AppError(
      'NOTIFICATION_NOT_RESENDABLE',
      `Notification ${id} has delivery status ${record.delivery.status}${deps.deliveryEnabled ? '' : ' and delivery is off'}`,
    );
  }
  // Routed again: the recipient map may have changed since.
  const alias = deps.provider?.recipientAlias?.(record.recipient);
  if (alias === null) throw new AppError('RECIPIENT_NOT_MAPPED', `No Pushover key for recipient "${record.recipient}"`);
  const to = alias ?? record.delivery.to;
  const delivery: Delivery = { status: 'pending', attempts: 0, resentAt: isoNow(ctx.clock), ...(to === undefined ? {} : { to }) };
  const patch: { delivery: Delivery; emergency?: Emergency } = { delivery };
  if (record.emergency) {
    const { retry, expire, callback, tags } = record.emergency;
    patch.emergency = { retry, expire, ...(callback === undefined ? {} : { callback }), ...(tags === undefined ? {} : { tags }) };
  }
  const updated = await ctx.repository.update(id, patch);
  if (!updated) throw new AppError('NOTIFICATION_NOT_FOUND', `No notification with id ${id}`);
  ctx.events.publish({ type: 'delivery', recipient: updated.recipient, notification: updated });
  return deps.delivery.deliverNow(updated);
}
