import { z } from '@homeops/common';

// What the routes answer. These schemas document the responses (/openapi.json) and are the types the dashboard reads
// them as (z.infer, imported as types only), so a change here breaks the dashboard's typecheck, not its users.

const attempts = z.number().int();
const ChannelSchema = z
  .object({
    channel: z.enum(['pushover', 'ntfy', 'email']),
    target: z.string().optional().openapi({ description: 'A fallback target: host/topic or the mail address (never a token)' }),
    status: z.enum(['pending', 'sent', 'failed', 'unknown', 'expired', 'cancelled']),
    attempts,
    at: z.string(),
    error: z.string().optional(),
  })
  .openapi('DeliveryChannel', { description: "One channel's state: Pushover's is the delivery's own, then each fallback target's" });

const route = {
  channels: z.array(ChannelSchema).optional().openapi({ description: 'Only for a recipient with fallback targets: where Pushover and each fallback stand' }),
  to: z.string().optional().openapi({ description: 'The recipient alias whose Pushover key it went to (default: PROVIDER_USER_KEY); never the key' }),
  resentAt: z.string().optional().openapi({ description: 'When it was resent with POST /notifications/{id}/resend' }),
};

const DeliverySchema = z
  .discriminatedUnion('status', [
    z.object({
      status: z.literal('pending'),
      attempts,
      ...route,
      error: z.string().optional(),
      lastAttemptAt: z.string().optional(),
      nextAttemptAt: z.string().optional(),
    }),
    z.object({
      status: z.literal('sent'),
      attempts,
      ...route,
      receipt: z.string().optional().openapi({ description: 'Emergency (priority 2) only: the receipt its acknowledgement is polled with' }),
      request: z.string().optional().openapi({ description: "Pushover's request id (every send this service made has one)" }),
      lastAttemptAt: z.string().optional(),
      note: z
        .string()
        .optional()
        .openapi({ description: 'What was left out or shortened, and why: to an encrypted recipient, an attachment, a url too long once encrypted' }),
    }),
    z.object({ status: z.literal('failed'), attempts, ...route, error: z.string(), lastAttemptAt: z.string() }),
    z
      .object({ status: z.literal('unknown'), attempts, ...route, error: z.string(), lastAttemptAt: z.string().optional() })
      .openapi({ description: 'An emergency got no answer and may be ringing; it is never sent twice (resend it if it did not arrive)' }),
    z.object({ status: z.literal('expired'), attempts, ...route, error: z.string(), lastAttemptAt: z.string().optional() }),
    z
      .object({ status: z.literal('cancelled'), attempts, ...route, error: z.string(), lastAttemptAt: z.string().optional() })
      .openapi({ description: 'A stage of an escalation chain that ended before it went out: never sent' }),
    z.object({ status: z.literal('skipped'), attempts }).openapi({ description: 'No push provider was configured' }),
  ])
  .openapi('Delivery', { description: 'Outcome of the delivery: the response to POST is sent after the first attempt finished or timed out' });

const ALARM_ENDS = ['acknowledgedAt', 'expiredAt', 'cancelledAt'] as const;

const EmergencySchema = z
  .object({
    retry: z.number().int(),
    expire: z.number().int(),
    callback: z.string().optional(),
    tags: z.string().optional(),
    acknowledgedAt: z.string().optional(),
    acknowledgedBy: z.string().optional().openapi({ description: 'The recipient alias that acknowledged it, or "a member of <alias>" for a group' }),
    acknowledgedByDevice: z.string().optional(),
    expiredAt: z.string().optional(),
    cancelledAt: z.string().optional().openapi({ description: 'Cancelled at Pushover because it was read or deleted here first' }),
  })
  .refine((e) => ALARM_ENDS.filter((end) => e[end] !== undefined).length <= 1, 'an alarm ends one way: acknowledged, expired or cancelled')
  .openapi('Emergency', { description: 'Priority 2: how it repeats, and how the alarm ended (at most one of acknowledgedAt, expiredAt, cancelledAt)' });

const AlertSchema = z
  .object({
    source: z.string().openapi({ description: 'The webhook template (alertmanager, grafana, uptime-kuma, generic, …) or heartbeat' }),
    key: z.string().openapi({ description: "The alert's identity at its source, hashed" }),
    firedBy: z.string().openapi({ description: 'Who fired it: token:<token id>, api-key, open or heartbeat (never a secret)' }),
  })
  .openapi('AlertIdentity', {
    description: 'Set by the server for an emergency a webhook or heartbeat rang: a repeat of the alert and its resolve match it',
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
    emergency: EmergencySchema.optional(),
    alert: AlertSchema.optional(),
    escalation: z
      .object({
        of: z.string(),
        step: z.number().int(),
        steps: z
          .array(z.object({ recipient: z.string(), afterSeconds: z.number().int(), id: z.string() }))
          .optional()
          .openapi({ description: 'On the first notification (step 0) only: each later step, and the id its stage gets once it goes out' }),
      })
      .optional()
      .openapi({ description: 'Set by the server: stage `step` of the escalation chain that notification `of` (step 0) started' }),
    read: z.boolean(),
    readAt: z.string().nullable(),
    createdAt: z.string(),
    delivery: DeliverySchema,
  })
  .openapi('Notification');

/** A notification as the routes send it and the dashboard reads it. */
export type NotificationView = z.infer<typeof NotificationSchema>;

/** GET /recipients, one entry. */
export const RecipientSummarySchema = z
  .object({
    recipient: z.string(),
    total: z.number().int(),
    unread: z.number().int(),
  })
  .openapi('RecipientSummary');

export type RecipientSummaryView = z.infer<typeof RecipientSummarySchema>;

/** GET /sounds. */
export const SoundListSchema = z
  .object({
    sounds: z.array(z.object({ name: z.string(), description: z.string() })),
    source: z
      .enum(['pushover', 'built-in'])
      .openapi({ description: "pushover: the app's own list, read at start and daily; built-in: Pushover's standard sounds" }),
    fetchedAt: z.string().nullable(),
  })
  .openapi('SoundList');

export type SoundListView = z.infer<typeof SoundListSchema>;
