/** Pushover's priorities: -2 lowest, -1 low, 0 normal, 1 high, 2 emergency. */
export type Priority = -2 | -1 | 0 | 1 | 2;

/** `T` with the other `Keys` declared absent: on the union, reading one gives undefined and setting one does not compile. */
type Only<T, Keys extends PropertyKey> = T & { [K in Exclude<Keys, keyof T>]?: never };

/** Every field a delivery may hold; each status below holds its own and none of the others. */
type DeliveryKey = 'status' | 'attempts' | 'to' | 'resentAt' | 'receipt' | 'request' | 'error' | 'lastAttemptAt' | 'nextAttemptAt' | 'note' | 'channels';

/** Where a delivery goes and since when: kept through every attempt and outcome. */
interface DeliveryRoute {
  /** The recipient alias whose Pushover key it goes to (`default`: the provider's own user key); never the key. */
  to?: string;
  /** When it was resent by request: its maximum age counts from then. */
  resentAt?: string;
  /** Only for a recipient with fallback targets: where each channel (Pushover first) stands. */
  channels?: ChannelState[];
}

/** The channels a notification can go through: Pushover, and a recipient's fallback targets. */
export type ChannelName = 'pushover' | 'ntfy' | 'email';

/**
 * One channel's state. Pushover's status is the delivery's own; a fallback target is `pending` (being sent or
 * waiting for its retry), `sent` or `failed` (out of attempts). `target` names a fallback target, never its token.
 */
export interface ChannelState {
  channel: ChannelName;
  target?: string;
  status: 'pending' | 'sent' | 'failed' | 'unknown' | 'expired' | 'cancelled';
  attempts: number;
  at: string;
  error?: string;
}

/**
 * Waiting for its first attempt; under way (`lastAttemptAt`: when the claimed attempt began); or, after `error`,
 * waiting for the retry at `nextAttemptAt`. Only a pending delivery is ever sent.
 */
export type PendingDelivery = Only<
  { status: 'pending'; attempts: number; lastAttemptAt?: string; error?: string; nextAttemptAt?: string } & DeliveryRoute,
  DeliveryKey
>;

/**
 * Accepted by Pushover: its request id, the receipt of an emergency (priority 2) and when the attempt began. The service
 * writes `request` and `lastAttemptAt` with every send; a history may hold a sent delivery without them. `note`: what
 * was left out or shortened (an encrypted recipient's attachment, a url too long once encrypted).
 */
export type SentDelivery = Only<
  { status: 'sent'; attempts: number; request?: string; receipt?: string; lastAttemptAt?: string; note?: string } & DeliveryRoute,
  DeliveryKey
>;

/** Given up: refused for good, or out of attempts. */
export type FailedDelivery = Only<{ status: 'failed'; attempts: number; error: string; lastAttemptAt: string } & DeliveryRoute, DeliveryKey>;

/** An emergency whose send got no answer: it may be ringing, so it is not sent again (resend it if not). */
export type UnknownDelivery = Only<{ status: 'unknown'; attempts: number; error: string; lastAttemptAt?: string } & DeliveryRoute, DeliveryKey>;

/** Still pending when it became too old to be worth sending (DELIVERY_MAX_AGE_SECONDS or its ttl). */
export type ExpiredDelivery = Only<{ status: 'expired'; attempts: number; error: string; lastAttemptAt?: string } & DeliveryRoute, DeliveryKey>;

/** Never sent: a stage of an escalation chain that ended (acknowledged, read, deleted or resolved) before it went out. */
export type CancelledDelivery = Only<{ status: 'cancelled'; attempts: number; error: string; lastAttemptAt?: string } & DeliveryRoute, DeliveryKey>;

/** Never sent: no push provider was configured when it was created. */
export type SkippedDelivery = Only<{ status: 'skipped'; attempts: number }, DeliveryKey>;

/** Where delivery of one notification stands: one variant per status, each with exactly the fields that status has. */
export type Delivery = PendingDelivery | SentDelivery | FailedDelivery | UnknownDelivery | ExpiredDelivery | CancelledDelivery | SkippedDelivery;

/** The statuses a delivery can have. */
export type DeliveryStatus = Delivery['status'];

/** True while a fallback target (ntfy, mail) is still to be sent: a restart picks it up as it does a pending delivery. */
export function hasPendingFallback(delivery: Delivery): boolean {
  return delivery.channels?.some((c) => c.channel !== 'pushover' && c.status === 'pending') === true;
}

/** True while something of the delivery is left to send: Pushover's attempt, or a fallback target. */
export function hasWorkLeft(delivery: Delivery): boolean {
  return delivery.status === 'pending' || hasPendingFallback(delivery);
}

/** Priority 2's settings: how the alarm repeats. */
interface AlarmSettings {
  /** Seconds between repeats (at least 30). */
  retry: number;
  /** Seconds after which repeats stop (at most 10800; Pushover also stops after 50 repeats). */
  expire: number;
  callback?: string;
  tags?: string;
}

/** Every field that says how an alarm ended; each end below holds its own and none of the others. */
type AlarmEndKey = 'acknowledgedAt' | 'acknowledgedBy' | 'acknowledgedByDevice' | 'expiredAt' | 'cancelledAt';

/** Not ended: it rings once sent, until it is acknowledged, expires or is cancelled. */
export type RingingAlarm = { [K in AlarmEndKey]?: never };

/** Acknowledged on a phone: by the recipient alias, or `a member of <alias>` for a group key's member. */
export type AcknowledgedAlarm = Only<{ acknowledgedAt: string; acknowledgedBy: string; acknowledgedByDevice?: string }, AlarmEndKey>;

/** Pushover stopped repeating it unacknowledged. */
export type ExpiredAlarm = Only<{ expiredAt: string }, AlarmEndKey>;

/** Cancelled at Pushover because it was read or deleted here first. */
export type CancelledAlarm = Only<{ cancelledAt: string }, AlarmEndKey>;

/** How an alarm ended: exactly one way. */
export type AlarmEnd = AcknowledgedAlarm | ExpiredAlarm | CancelledAlarm;

/** Priority 2: how the alarm repeats, and whether and how it ended (one end at most, stored beside the settings). */
export type Emergency = AlarmSettings & (RingingAlarm | AlarmEnd);

/** The emergency with its alarm ended as `end`; an end it held before is replaced, never kept beside the new one. */
export function endAlarm(emergency: Emergency, end: AlarmEnd): Emergency {
  const { acknowledgedAt: _at, acknowledgedBy: _by, acknowledgedByDevice: _device, expiredAt: _expired, cancelledAt: _cancelled, ...settings } = emergency;
  return { ...settings, ...end };
}

/** True while an emergency may still be ringing: sent, with a receipt, and not acknowledged, expired or cancelled. */
export function isRinging(record: NotificationRecord): boolean {
  const e = record.emergency;
  return (
    record.priority === 2 &&
    e !== undefined &&
    record.delivery.status === 'sent' &&
    record.delivery.receipt !== undefined &&
    e.acknowledgedAt === undefined &&
    e.expiredAt === undefined &&
    e.cancelledAt === undefined
  );
}

/**
 * Which alert an emergency rings for and who fired it: what a repeated firing and a resolve look up. Only the alert
 * hooks write it; caller tags cannot stand in for it (the `alert-` tag prefix is refused on create).
 */
export interface AlertIdentity {
  /** The template (`alertmanager`, `generic`, …) or `heartbeat`. */
  source: string;
  /** The alert's identity at its source, hashed (hex). */
  key: string;
  /** Who fired it: `token:<token id>`, `api-key`, `open` (a keyless service) or `heartbeat`; never a secret. */
  firedBy: string;
}

/** A file stored beside the history and referenced by the record. */
export interface AttachmentMeta {
  filename: string;
  contentType: string;
  size: number;
}

/** Not read yet. */
export type Unread = { read: false; readAt: null };

/** Read, since `readAt` (the first time it was marked read). */
export type Read = { read: true; readAt: string };

/** Whether and since when a notification is read: one fact, kept as the two fields the API and the history have always had. */
export type ReadStatus = Unread | Read;

export const UNREAD: Unread = { read: false, readAt: null };

/** A read status, or none given. */
export type OptionalReadStatus = ReadStatus | { read?: never; readAt?: never };

/** Read since `at`. */
export function readSince(at: string): Read {
  return { read: true, readAt: at };
}

/** What a stored notification says, apart from whether it is read. */
export interface NotificationContent {
  id: string;
  recipient: string;
  title: string;
  message: string;
  priority: Priority;
  sound?: string;
  url?: string;
  urlTitle?: string;
  html?: boolean;
  /** Shown in a monospace font (Pushover's `monospace`; not with html). */
  monospace?: boolean;
  ttl?: number;
  device?: string;
  attachment?: AttachmentMeta;
  /** Priority 2 only. */
  emergency?: Emergency;
  /** Set by the server only (never from a create body or a patch): the alert this emergency rings for. */
  alert?: AlertIdentity;
  /** Set by the server only: this emergency is stage `step` of the escalation chain started by notification `of` (step 0). */
  escalation?: EscalationStage;
  createdAt: string;
  delivery: Delivery;
}

/** Which escalation chain a notification belongs to, and its stage (0: the first notification). */
export interface EscalationStage {
  of: string;
  step: number;
  /** On the first (step 0) only: each later step, and the id its stage has once it went out (what the inbox shows). */
  steps?: PlannedStage[];
}

/** A later step of a chain as its first notification lists it. */
export interface PlannedStage {
  recipient: string;
  afterSeconds: number;
  /** The id the stage's notification gets when the step goes out (none exists before, nor when the chain ended first). */
  id: string;
}

/** One stored notification. */
export type NotificationRecord = NotificationContent & ReadStatus;

/** The fields of a record that may change after creation: its read status (whole), delivery and emergency. */
export type NotificationPatch = Partial<Pick<NotificationContent, 'delivery' | 'emergency'>> & OptionalReadStatus;
