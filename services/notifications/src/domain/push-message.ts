import type { NotificationContext } from './notification-context.js';
import type { NotificationRecord } from './notification.js';
import type { PushMessage } from './push-provider.js';

/** The provider's view of a stored record; image attachments go along, documents stay downloadable only. */
export async function toPushMessage(ctx: NotificationContext, record: NotificationRecord): Promise<PushMessage> {
  const message: PushMessage = { title: record.title, message: record.message, priority: record.priority };
  if (record.sound !== undefined) message.sound = record.sound;
  if (record.url !== undefined) message.url = record.url;
  if (record.urlTitle !== undefined) message.urlTitle = record.urlTitle;
  if (record.html !== undefined) message.html = record.html;
  if (record.monospace !== undefined) message.monospace = record.monospace;
  message.createdAt = record.createdAt;
  if (record.ttl !== undefined) message.ttl = record.ttl;
  if (record.device !== undefined) message.device = record.device;
  if (record.delivery.to !== undefined) message.to = record.delivery.to;
  if (record.emergency !== undefined) {
    const { retry, expire, callback, tags } = record.emergency;
    message.emergency = { retry, expire, ...(callback === undefined ? {} : { callback }), ...(tags === undefined ? {} : { tags }) };
  }
  if (record.attachment?.contentType.startsWith('image/')) {
    const data = await ctx.attachments.read(record.id);
    if (data) message.attachment = { filename: record.attachment.filename, contentType: record.attachment.contentType, data };
  }
  return message;
}
