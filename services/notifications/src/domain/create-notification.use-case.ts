import { AppError } from '@homeops/common';
import { assertAttachmentType, safeFilename } from './attachment-type.js';
import type { DeliveryWorker } from './delivery.worker.js';
import type { NotificationContext } from './notification-context.js';
import { isoTimestamp } from './iso-time.js';
import { newNotificationId } from './notification-id.js';
import type { AttachmentMeta, Delivery, NotificationRecord, Priority } from './notification.js';

/** An attachment as received: the declared name and type, and the bytes. */
export interface IncomingAttachment {
  filename?: string | undefined;
  contentType?: string | undefined;
  data: Buffer;
}

/** What a caller asks to send; validated (limits, sound names) at the edge. */
export interface NewNotification {
  recipient: string;
  title: string;
  message: string;
  priority: number;
  sound?: string | undefined;
  url?: string | undefined;
  urlTitle?: string | undefined;
  html?: boolean | undefined;
  monospace?: boolean | undefined;
  ttl?: number | undefined;
  device?: string | undefined;
  attachment?: IncomingAttachment | undefined;
}

/** The use-case's collaborators beyond storage: who delivers, and whether delivery is on at all. */
export interface CreateDeps {
  delivery: DeliveryWorker;
  deliveryEnabled: boolean;
}

function uniqueId(ctx: NotificationContext, now: Date): string {
  // 80 random bits make a clash practically impossible; checking costs one map lookup, so check anyway.
  for (;;) {
    const id = newNotificationId(now);
    if (!ctx.repository.get(id)) return id;
  }
}

const OPTIONAL_FIELDS = ['sound', 'url', 'urlTitle', 'html', 'monospace', 'ttl', 'device'] as const;

function assertPriority(value: number): Priority {
  if (Number.isInteger(value) && value >= -2 && value <= 2) return value as Priority;
  throw new AppError('VALIDATION_FAILED', 'priority must be an integer from -2 to 2', {
    details: [{ path: 'body.priority', message: 'must be an integer from -2 to 2' }],
  });
}

/**
 * Stores the notification (attachment file first, then the record, both durable) and runs the first delivery
 * attempt; resolves the record as stored after that attempt finished or timed out. Provider off: delivery `skipped`.
 */
export async function createNotification(
  ctx: NotificationContext,
  deps: CreateDeps,
  input: NewNotification,
): Promise<NotificationRecord> {
  if (input.html && input.monospace) {
    throw new AppError('VALIDATION_FAILED', 'html and monospace cannot both be set', {
      details: [{ path: 'body.monospace', message: 'Pushover shows a message either as HTML or in monospace, not both' }],
    });
  }
  const now = ctx.clock.now();
  const id = uniqueId(ctx, now);
  const incoming = input.attachment;
  let attachment: AttachmentMeta | undefined;
  if (incoming) {
    const type = assertAttachmentType(incoming.data, incoming.contentType);
    attachment = { filename: safeFilename(incoming.filename, `attachment-${id}`), contentType: type.contentType, size: incoming.data.length };
  }
  const delivery: Delivery = { status: deps.deliveryEnabled ? 'pending' : 'skipped', attempts: 0 };
  // Given fields in the record's documented order, optional ones only when set (no empty keys in the file).
  const fields: Record<string, unknown> = { id, recipient: input.recipient, title: input.title, message: input.message, priority: assertPriority(input.priority) };
  for (const key of OPTIONAL_FIELDS) {
    const value = input[key];
    if (value !== undefined) fields[key] = value;
  }
  if (attachment) fields.attachment = attachment;
  fields.read = false;
  fields.readAt = null;
  fields.createdAt = isoTimestamp(now);
  fields.delivery = delivery;
  const record = fields as unknown as NotificationRecord;
  if (incoming && attachment) await ctx.attachments.save(id, incoming.data);
  try {
    await ctx.repository.insert(record);
  } catch (err) {
    if (attachment) await ctx.attachments.remove(id).catch(() => undefined);
    throw err instanceof AppError ? err : new AppError('STORAGE_UNAVAILABLE', undefined, { cause: err });
  }
  ctx.events.publish({ type: 'created', recipient: record.recipient, notification: record });
  return deps.deliveryEnabled ? deps.delivery.deliverNow(record) : record;
}
