import { AppError } from '@homeops/common/core';
import { assertAttachmentType } from './attachment-type.js';
import { safeFilename } from './file-names.js';
import type { DeliveryWorker } from './delivery.worker.js';
import type { NotificationContext } from './notification-context.js';
import { isoTimestamp } from './iso-time.js';
import { newNotificationId } from './notification-id.js';
import { ALERT_TAG_PREFIX, alertTag, reservedTagIn } from './alert-identity.js';
import type { AlertIdentity, AttachmentMeta, Delivery, Emergency, EscalationStage, NotificationRecord, Priority } from './notification.js';
import type { PushProvider } from './push-provider.js';

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
  /** Priority 2 only: seconds between repeats (≥ 30), until when (≤ 10800 s), Pushover's callback URL and tags. */
  retry?: number | undefined;
  expire?: number | undefined;
  callback?: string | undefined;
  tags?: string | undefined;
  attachment?: IncomingAttachment | undefined;
  /** Priority 2 only: who gets the same emergency when nobody acknowledged it this many seconds after it was sent. */
  escalate?: EscalationStep[] | undefined;
}

/** One step of an escalation: the recipient the emergency goes to, counted from the first notification. */
export interface EscalationStep {
  recipient: string;
  afterSeconds: number;
}

/** The chain a created emergency is a stage of, and the Pushover tag every stage shares (the planner's only). */
export type EscalationOf = EscalationStage & { tag: string };

/** The use-case's collaborators beyond storage: who delivers, whether delivery is on, and the provider's rules. */
export interface CreateDeps {
  delivery: DeliveryWorker;
  deliveryEnabled: boolean;
  /** Recipient routing and sound names, when the provider has them. */
  provider?: Pick<PushProvider, 'recipientAlias' | 'soundList'>;
  /** The sound names accepted when the provider keeps no list of its own (the app passes Pushover's built-in ones). */
  defaultSounds: readonly string[];
  /** Priority 2 defaults, seconds. */
  emergency?: { retry: number; expire: number };
}

function invalid(path: string, message: string): AppError {
  return new AppError('VALIDATION_FAILED', `${path.replace('body.', '')} ${message}`, { details: [{ path, message }] });
}

/** The alias the recipient's pushes go to (undefined with delivery off); refused when the map says so. */
export function routeOf(deps: CreateDeps, recipient: string): string | undefined {
  if (!deps.deliveryEnabled || !deps.provider?.recipientAlias) return undefined;
  const alias = deps.provider.recipientAlias(recipient);
  if (alias !== null) return alias;
  throw new AppError('RECIPIENT_NOT_MAPPED', `No Pushover key for recipient "${recipient}"`, {
    details: [{ path: 'body.recipient', message: 'is not in the recipient map, and unmapped recipients are refused' }],
  });
}

function assertSound(deps: CreateDeps, sound: string | undefined): void {
  if (sound === undefined) return;
  const list = deps.provider?.soundList?.();
  const names = list ? Object.keys(list.sounds) : [...deps.defaultSounds];
  if (!names.includes(sound)) throw invalid('body.sound', `must be one of this app's sounds (GET /sounds): ${names.join(', ')}`);
}

/** Priority 2's repeat settings; refused on other priorities, where Pushover would ignore them. */
function emergencyOf(
  deps: CreateDeps,
  input: NewNotification,
  priority: Priority,
  alert: AlertIdentity | undefined,
  chain: EscalationOf | undefined,
): Emergency | undefined {
  if (priority !== 2) {
    const given = (['retry', 'expire', 'callback', 'tags', 'escalate'] as const).find((key) => input[key] !== undefined);
    if (given) throw invalid(`body.${given}`, 'applies to emergency notifications only (priority 2)');
    return undefined;
  }
  const emergency: Emergency = { retry: input.retry ?? deps.emergency?.retry ?? 60, expire: input.expire ?? deps.emergency?.expire ?? 3600 };
  if (input.callback !== undefined) emergency.callback = input.callback;
  // The alert's own tag goes beside the caller's (which may not mimic it): identity itself is the record's `alert`.
  const tags = alert || chain ? [input.tags, alert && alertTag(alert), chain?.tag].filter(Boolean).join(',') : input.tags;
  if (tags !== undefined) emergency.tags = tags;
  return emergency;
}

/** Refuses a caller's tag that looks like the server's alert tags (they once were the alert's identity). */
function assertNoReservedTag(tags: string | undefined): void {
  const reserved = reservedTagIn(tags);
  if (reserved === undefined) return;
  throw new AppError('VALIDATION_FAILED', `tags: "${reserved}" uses the reserved prefix "${ALERT_TAG_PREFIX}"`, {
    details: [{ path: 'body.tags', message: `must not start with "${ALERT_TAG_PREFIX}" (reserved for the tags of webhook alerts)` }],
    solution: `Name your tags without the "${ALERT_TAG_PREFIX}" prefix; an alert's own tag is set by POST /hooks/{template}`,
  });
}

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
  /**
   * `id`: a given id (a planned send's, the same on every try), default a new one. `waitForDelivery: false`: resolve
   * once stored, the first attempt queued behind the requests that wait for theirs (a webhook with many alerts).
   * `alert`: the alert an emergency rings for (the alert hooks only; never from a caller's body). `escalation`: the
   * chain this emergency is a stage of (the planner only).
   */
  given?: { id?: string; waitForDelivery?: boolean; alert?: AlertIdentity; escalation?: EscalationOf },
): Promise<NotificationRecord> {
  if (input.html && input.monospace) {
    throw new AppError('VALIDATION_FAILED', 'html and monospace cannot both be set', {
      details: [{ path: 'body.monospace', message: 'Pushover shows a message either as HTML or in monospace, not both' }],
    });
  }
  const priority = assertPriority(input.priority);
  assertSound(deps, input.sound);
  assertNoReservedTag(input.tags);
  const alert = priority === 2 ? given?.alert : undefined;
  const chain = priority === 2 ? given?.escalation : undefined;
  const emergency = emergencyOf(deps, input, priority, alert, chain);
  const to = routeOf(deps, input.recipient);
  const now = new Date(ctx.clock.now());
  // 80 random bits make a clash practically impossible, and the store refuses a duplicate id.
  const id = given?.id ?? newNotificationId(now);
  const incoming = input.attachment;
  let attachment: AttachmentMeta | undefined;
  if (incoming) {
    const type = assertAttachmentType(incoming.data, incoming.contentType);
    attachment = { filename: safeFilename(incoming.filename, `attachment-${id}`), contentType: type.contentType, size: incoming.data.length };
  }
  // Without a provider there is no route either (routeOf): a skipped delivery holds its status and count only.
  const delivery: Delivery = deps.deliveryEnabled
    ? { status: 'pending', attempts: 0, ...(to === undefined ? {} : { to }) }
    : { status: 'skipped', attempts: 0 };
  // Given fields in the record's documented order, optional ones only when set (no empty keys in the file).
  const record: NotificationRecord = {
    id,
    recipient: input.recipient,
    title: input.title,
    message: input.message,
    priority,
    ...(input.sound === undefined ? {} : { sound: input.sound }),
    ...(input.url === undefined ? {} : { url: input.url }),
    ...(input.urlTitle === undefined ? {} : { urlTitle: input.urlTitle }),
    ...(input.html === undefined ? {} : { html: input.html }),
    ...(input.monospace === undefined ? {} : { monospace: input.monospace }),
    ...(input.ttl === undefined ? {} : { ttl: input.ttl }),
    ...(input.device === undefined ? {} : { device: input.device }),
    ...(attachment === undefined ? {} : { attachment }),
    ...(emergency === undefined ? {} : { emergency }),
    ...(alert === undefined ? {} : { alert: { source: alert.source, key: alert.key, firedBy: alert.firedBy } }),
    ...(chain === undefined ? {} : { escalation: { of: chain.of, step: chain.step, ...(chain.steps ? { steps: chain.steps } : {}) } }),
    read: false,
    readAt: null,
    createdAt: isoTimestamp(now),
    delivery,
  };
  if (incoming && attachment) await ctx.attachments.save(id, incoming.data);
  try {
    await ctx.repository.insert(record);
  } catch (err) {
    if (attachment) await ctx.attachments.remove(id).catch(() => undefined);
    throw err instanceof AppError ? err : new AppError('STORAGE_UNAVAILABLE', undefined, { cause: err });
  }
  ctx.events.publish({ type: 'created', recipient: record.recipient, notification: record });
  if (!deps.deliveryEnabled) return record;
  if (given?.waitForDelivery !== false) return deps.delivery.deliverNow(record);
  deps.delivery.deliverSoon(record);
  return record;
}
