import { z } from '@homeops/common';
import { isAcceptedUrl, isCleanText } from '../domain/text-rules.js';
import { PUSHOVER_SOUNDS } from '../sounds.js';

const CLEAN_TEXT = 'must be valid Unicode text (no lone surrogate, NUL or noncharacter)';
const text = () => z.string().refine(isCleanText, CLEAN_TEXT);
const linkUrl = z
  .string()
  .max(512)
  .refine(isAcceptedUrl, 'must be a URL Pushover opens (http, https, tel:, sms:, mailto: or an app link), not javascript: or data:');

/** An attachment sent inside the JSON body. */
export const AttachmentInputSchema = z
  .object({
    filename: text().min(1).max(255),
    contentType: z.string().min(1).max(255),
    data: z.base64().min(1).openapi({ description: 'The file, base64-encoded (at most 5 MiB decoded)' }),
  })
  .openapi('AttachmentInput');

/** POST /notifications: Pushover's limits, checked before anything is stored. */
export const CreateNotificationBodySchema = z
  .object({
    recipient: text().min(1).max(256).openapi({ description: 'Whose history this belongs to' }),
    title: text().max(250).default(''),
    message: text().min(1).max(1024),
    priority: z.number().int().min(-2).max(2).default(0).openapi({
      description: '-2 lowest, -1 low, 0 normal, 1 high, 2 emergency (repeats until acknowledged)',
    }),
    sound: z.enum(PUSHOVER_SOUNDS).optional(),
    url: linkUrl.optional(),
    urlTitle: text().max(100).optional(),
    html: z.boolean().optional(),
    monospace: z.boolean().optional().openapi({ description: 'Show the message in a monospace font (not with html)' }),
    ttl: z.number().int().positive().optional().openapi({ description: 'Seconds before the message is deleted from devices' }),
    device: text().min(1).max(250).optional().openapi({ description: 'Pushover device name(s), comma-separated' }),
    attachment: AttachmentInputSchema.optional(),
  })
  .strict()
  .openapi('CreateNotification');

export type CreateNotificationBody = z.infer<typeof CreateNotificationBodySchema>;

/** The same request as multipart/form-data (documented only; the multipart parser maps it onto the JSON shape). */
export const CreateNotificationMultipartSchema = CreateNotificationBodySchema.omit({ attachment: true })
  .extend({ attachment: z.string().openapi({ format: 'binary', description: 'The file part' }).optional() })
  .openapi('CreateNotificationMultipart');

const DeliverySchema = z.object({
  status: z.enum(['sent', 'pending', 'failed', 'skipped', 'expired']),
  attempts: z.number().int(),
  receipt: z.string().optional(),
  request: z.string().optional(),
  error: z.string().optional(),
  lastAttemptAt: z.string().optional(),
  nextAttemptAt: z.string().optional(),
});

/** A stored notification as returned by every route. */
export const NotificationSchema = z
  .object({
    id: z.string(),
    recipient: z.string(),
    title: z.string(),
    message: z.string(),
    priority: z.number().int(),
    sound: z.string().optional(),
    url: z.string().optional(),
    urlTitle: z.string().optional(),
    html: z.boolean().optional(),
    monospace: z.boolean().optional(),
    ttl: z.number().optional(),
    device: z.string().optional(),
    attachment: z.object({ filename: z.string(), contentType: z.string(), size: z.number() }).optional(),
    read: z.boolean(),
    readAt: z.string().nullable(),
    createdAt: z.string(),
    delivery: DeliverySchema.openapi({
      description: 'Outcome of the delivery: the response to POST is sent after the first attempt finished or timed out',
    }),
  })
  .openapi('Notification');

export const IdParamsSchema = z.object({ id: z.string().min(1).max(64) });
export const RecipientParamsSchema = z.object({ recipient: z.string().min(1).max(256) });

/** GET /notifications/:recipient query. */
export const ListQuerySchema = z.object({
  unread: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  before: z.string().min(1).max(64).optional().openapi({ description: 'Cursor: only notifications older than this id' }),
});

export const ReadAllResultSchema = z.object({ updated: z.number().int() }).openapi('ReadAllResult');
