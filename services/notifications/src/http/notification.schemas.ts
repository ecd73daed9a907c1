import { z } from '@homeops/common';
import type { NewNotification } from '../domain/create-notification.use-case.js';
import { ALERT_TAG_PREFIX, reservedTagIn } from '../domain/alert-identity.js';
import { isAcceptedUrl, isCleanText, isPrintableName } from '../domain/text-rules.js';

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

const recipientName = () => text().min(1).max(256).refine(isPrintableName, 'must be printable: no control, bidi or zero-width characters, and not "." or ".."');

/** Priority 2 only: who else the emergency goes to while nobody acknowledges it. */
export const EscalateSchema = z
  .array(
    z
      .object({
        recipient: recipientName().openapi({ description: 'Who gets the same emergency at this step (the token must reach this recipient too)' }),
        afterSeconds: z.number().int().min(60).openapi({ description: 'Seconds after the first notification (step 0); at least 60' }),
      })
      .strict(),
  )
  .min(1)
  .max(5)
  .refine((steps) => steps.every((step, i) => i === 0 || step.afterSeconds > steps[i - 1]!.afterSeconds), 'afterSeconds must increase from step to step')
  .openapi('Escalate', {
    description:
      'Priority 2 only: at each step, if nobody acknowledged any stage, the same emergency goes to that recipient; the first acknowledgement stops them all',
  });

/** POST /notifications: Pushover's limits, checked before anything is stored. */
export const CreateNotificationBodySchema = z
  .object({
    recipient: text()
      .min(1)
      .max(256)
      .refine(isPrintableName, 'must be printable: no control, bidi or zero-width characters, and not "." or ".."')
      .openapi({ description: 'Whose history this belongs to' }),
    title: text().max(250).default(''),
    message: text().min(1).max(1024),
    priority: z.number().int().min(-2).max(2).default(0).openapi({
      description: '-2 lowest, -1 low, 0 normal, 1 high, 2 emergency (repeats until acknowledged)',
    }),
    sound: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be a sound name (letters, digits, _ or -)')
      .optional()
      .openapi({ description: "One of this app's sounds (GET /sounds): Pushover's built-in ones and the app's custom sounds" }),
    url: linkUrl.optional(),
    urlTitle: text().max(100).optional(),
    html: z.boolean().optional(),
    monospace: z.boolean().optional().openapi({ description: 'Show the message in a monospace font (not with html)' }),
    ttl: z.number().int().positive().optional().openapi({ description: 'Seconds before the message is deleted from devices' }),
    device: text().min(1).max(250).optional().openapi({ description: "Pushover device name(s), comma-separated; default: the recipient map's devices" }),
    retry: z
      .number()
      .int()
      .min(30)
      .max(10_800)
      .optional()
      .openapi({ description: 'Priority 2 only: seconds between repeats (default EMERGENCY_RETRY_SECONDS)' }),
    expire: z.number().int().min(30).max(10_800).optional().openapi({
      description: 'Priority 2 only: seconds until repeats stop (default EMERGENCY_EXPIRE_SECONDS); Pushover also stops after 50 repeats',
    }),
    callback: z
      .url({ protocol: /^https?$/ })
      .max(512)
      .optional()
      .openapi({ description: 'Priority 2 only: Pushover POSTs here when it is acknowledged' }),
    tags: text()
      .min(1)
      .max(250)
      .refine((tags) => reservedTagIn(tags) === undefined, `must not start with "${ALERT_TAG_PREFIX}" (reserved for the tags of webhook alerts)`)
      .optional()
      .openapi({ description: `Priority 2 only: comma-separated tags (cancel by tag in Pushover); none may start with "${ALERT_TAG_PREFIX}"` }),
    attachment: AttachmentInputSchema.optional(),
    escalate: EscalateSchema.optional(),
  })
  .strict()
  .openapi('CreateNotification');

export type CreateNotificationBody = z.infer<typeof CreateNotificationBodySchema>;

/** A validated create body as the use-case takes it: the attachment's base64 decoded; without one the body already is the input. */
export function newNotificationOf(body: CreateNotificationBody): NewNotification {
  const { attachment } = body;
  return attachment === undefined
    ? (body as Omit<typeof body, 'attachment'>)
    : { ...body, attachment: { ...attachment, data: Buffer.from(attachment.data, 'base64') } };
}

/** The same request as multipart/form-data (documented only; the multipart parser maps it onto the JSON shape). */
export const CreateNotificationMultipartSchema = CreateNotificationBodySchema.omit({ attachment: true, escalate: true })
  .extend({ attachment: z.string().openapi({ format: 'binary', description: 'The file part' }).optional() })
  .openapi('CreateNotificationMultipart');

export const IdParamsSchema = z.object({ id: z.string().min(1).max(64) });
export const RecipientParamsSchema = z.object({ recipient: z.string().min(1).max(256) });

/** GET /notifications/:recipient query. */
export const ListQuerySchema = z.object({
  unread: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  before: z.string().min(1).max(64).optional().openapi({ description: 'Cursor: only notifications older than this id' }),
});

export const ReadAllResultSchema = z.object({ updated: z.number().int() }).openapi('ReadAllResult');
