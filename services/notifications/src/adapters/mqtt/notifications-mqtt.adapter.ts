import { isUtf8 } from 'node:buffer';
import { AppError, assertJsonDepth, isAppError, type Timer } from '@homeops/common/core';
import type { MqttBridge } from '@homeops/common/mqtt';
import { createNotification, type CreateDeps, type NewNotification } from '../../domain/create-notification.use-case.js';
import type { NotificationContext } from '../../domain/notification-context.js';
import type { NotificationEvent } from '../../domain/notification-events.js';
import type { NotificationRecord } from '../../domain/notification.js';
import { markAllRead } from '../../domain/read-status.use-case.js';
import { recipientDevice, recipientEntities, type RecipientEntity } from './recipient-entities.js';

/** What the adapter uses of the bridge. */
export type NotificationsBridge = Pick<MqttBridge, 'subscribe' | 'setDevices' | 'publishState' | 'publishEvent' | 'deviceId'>;

/** How the adapter is built: the domain it acts through, the validation HTTP uses, whom it shows. */
export interface NotificationsMqttOptions {
  bridge: NotificationsBridge;
  baseTopic: string;
  ctx: NotificationContext;
  create: CreateDeps;
  /** The create request's validation, the same as POST /notifications' (it throws AppError VALIDATION_FAILED). */
  parseCreate: (body: unknown) => NewNotification;
  recipients: string[];
  swVersion: string;
}

/** Larger messages on a notify topic are refused: a 5 MiB attachment is about 6.7 MiB of base64. */
export const MAX_NOTIFY_BYTES = 7 * 1024 * 1024;
/** The largest packet the broker may send notifications: a notify message at the limit, with room for its topic. */
export const MAX_PACKET_BYTES = MAX_NOTIFY_BYTES + 64 * 1024;
/** The unread sensor is read at most this often per recipient: Home Assistant needs no more than a few a second. */
export const UNREAD_INTERVAL_MS = 250;
/** Where a recipient's unread count stands between a change and its publication. */
type CountState = { kind: 'waiting'; timer: Timer } | { kind: 'reading'; again: boolean };
/** Commands handled at once; past it a command is refused (SERVER_BUSY) instead of piling up. */
const MAX_COMMANDS_AT_ONCE = 32;

/**
 * Home Assistant's side of the notifications: per recipient a `notify` entity (a message creates a notification
 * through the create use-case), the unread count, a "mark all read" button (the read-all use-case) and an `event`
 * entity for the ends of emergency alarms. Refusals are published on the recipient's error topic and logged.
 */
export class NotificationsMqttAdapter {
  private readonly entities: RecipientEntity[];
  private readonly bySlug: Map<string, RecipientEntity>;
  private readonly byRecipient: Map<string, RecipientEntity>;
  private commands = 0;
  private unsubscribe: (() => void) | undefined;
  /** Recipients whose unread count waits to be read or is being read; none: it is published and current. */
  private readonly counts = new Map<string, CountState>();
  private readonly lastReadAt = new Map<string, number>();

  constructor(private readonly options: NotificationsMqttOptions) {
    this.entities = recipientEntities(options.baseTopic, options.recipients);
    this.bySlug = new Map(this.entities.map((e) => [e.slug, e]));
    this.byRecipient = new Map(this.entities.map((e) => [e.recipient, e]));
  }

  /** The recipients shown, in order. */
  get recipients(): string[] {
    return this.entities.map((e) => e.recipient);
  }

  /** Publishes the devices and counts, and listens to commands and domain events. */
  start(): void {
    const { bridge, baseTopic, swVersion, ctx } = this.options;
    bridge.setDevices(this.entities.map((entity) => recipientDevice(entity, bridge.deviceId(entity.slug), swVersion)));
    bridge.subscribe(`${baseTopic}/recipients/+/notify`, (topic, payload) => this.command(topic, () => this.onNotify(topic, payload)));
    bridge.subscribe(`${baseTopic}/recipients/+/mark-all-read`, (topic) => this.command(topic, () => this.onMarkAllRead(topic)));
    this.unsubscribe = ctx.events.subscribeAll((event) => this.onEvent(event));
    for (const entity of this.entities) this.refreshUnread(entity.recipient);
  }

  stop(): void {
    this.unsubscribe?.();
    for (const state of this.counts.values()) if (state.kind === 'waiting') state.timer.cancel();
    this.counts.clear();
  }

  private entityOf(topic: string): RecipientEntity | undefined {
    const slug = topic.slice(this.options.baseTopic.length + '/recipients/'.length).split('/')[0] ?? '';
    return this.bySlug.get(slug);
  }

  /** Runs one command within the bound; a refusal goes to the recipient's error topic and the log, never further. */
  private async command(topic: string, work: () => Promise<void>): Promise<void> {
    const entity = this.entityOf(topic);
    if (!entity) return;
    if (this.commands >= MAX_COMMANDS_AT_ONCE) return this.refuse(entity, topic, new AppError('SERVER_BUSY'));
    this.commands++;
    try {
      await work();
    } catch (err) {
      this.refuse(entity, topic, err);
    } finally {
      this.commands--;
    }
  }

  private refuse(entity: RecipientEntity, topic: string, err: unknown): void {
    const error = isAppError(err) ? err : new AppError('INTERNAL', undefined, { cause: err });
    const body = {
      code: error.code,
      error: error.message,
      ...(error.details ? { details: error.details } : {}),
      topic,
      at: new Date(this.options.ctx.clock.now()).toISOString(),
    };
    this.options.ctx.logger.warn(
      { code: error.code, topic, details: error.details, err: isAppError(err) ? undefined : err },
      `mqtt: ${topic} refused: ${error.message}`,
    );
    this.options.bridge.publishEvent(entity.topics.error, JSON.stringify(body));
  }

  private async onNotify(topic: string, payload: Buffer): Promise<void> {
    const entity = this.entityOf(topic)!;
    const record = await createNotification(this.options.ctx, this.options.create, this.options.parseCreate(this.bodyOf(entity.recipient, payload)));
    this.options.ctx.logger.info({ id: record.id, recipient: record.recipient }, 'mqtt: notification created');
  }

  /** Plain text is the message; a JSON object is the POST /notifications body, its recipient the topic's. */
  private bodyOf(recipient: string, payload: Buffer): unknown {
    if (payload.length > MAX_NOTIFY_BYTES) throw new AppError('PAYLOAD_TOO_LARGE', `A notify message may have at most ${MAX_NOTIFY_BYTES} bytes`);
    if (!isUtf8(payload)) throw invalid('payload', 'must be UTF-8 text');
    const text = payload.toString('utf8');
    if (!text.trimStart().startsWith('{')) return { recipient, message: text };
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new AppError('MALFORMED_JSON');
    }
    assertJsonDepth(body);
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new AppError('MALFORMED_JSON');
    const given = (body as { recipient?: unknown }).recipient;
    if (given !== undefined && given !== recipient) throw invalid('body.recipient', `must be "${recipient}" (the topic's) or left out`);
    return { ...body, recipient };
  }

  private async onMarkAllRead(topic: string): Promise<void> {
    const entity = this.entityOf(topic)!;
    await markAllRead(this.options.ctx, entity.recipient);
  }

  private onEvent(event: NotificationEvent): void {
    const entity = this.byRecipient.get(event.recipient);
    if (!entity) return;
    if (event.type === 'acknowledged' || event.type === 'alarm-ended') this.publishAlarm(entity, event.type, event.notification);
    if (event.type !== 'delivery') this.refreshUnread(event.recipient);
  }

  private publishAlarm(entity: RecipientEntity, type: 'acknowledged' | 'alarm-ended', record: NotificationRecord): void {
    const alarm = record.emergency;
    const common = { event_type: type, id: record.id, title: record.title, message: record.message };
    const detail =
      type === 'acknowledged'
        ? { acknowledged_by: alarm?.acknowledgedBy ?? null, acknowledged_by_device: alarm?.acknowledgedByDevice ?? null, at: alarm?.acknowledgedAt ?? null }
        : { ended: alarm?.cancelledAt !== undefined ? 'cancelled' : 'expired', at: alarm?.cancelledAt ?? alarm?.expiredAt ?? null };
    this.options.bridge.publishEvent(entity.topics.alarm, JSON.stringify({ ...common, ...detail }));
  }

  /**
   * Reads the count again after a change: at once when the last read is UNREAD_INTERVAL_MS old, else when it will be
   * (a burst of creates costs a few reads, not one each, and the sensor still ends on the true count).
   */
  private refreshUnread(recipient: string): void {
    const state = this.counts.get(recipient);
    if (state?.kind === 'waiting') return;
    if (state?.kind === 'reading') {
      state.again = true;
      return;
    }
    const { clock } = this.options.ctx;
    const wait = (this.lastReadAt.get(recipient) ?? -Infinity) + UNREAD_INTERVAL_MS - clock.now();
    if (wait > 0) {
      const timer = clock.setTimer(() => {
        this.counts.delete(recipient);
        this.refreshUnread(recipient);
      }, wait);
      this.counts.set(recipient, { kind: 'waiting', timer });
      return;
    }
    this.readUnread(recipient);
  }

  private readUnread(recipient: string): void {
    const { ctx, bridge } = this.options;
    const reading: CountState = { kind: 'reading', again: false };
    this.counts.set(recipient, reading);
    this.lastReadAt.set(recipient, ctx.clock.now());
    const entity = this.byRecipient.get(recipient)!;
    void ctx.repository
      .list(recipient, { unreadOnly: true, limit: 1 })
      .then(
        (page) => bridge.publishState(entity.topics.unread, String(page.unread)),
        (err: unknown) => ctx.logger.warn({ err, recipient }, 'mqtt: the unread count could not be read'),
      )
      .finally(() => {
        if (this.counts.get(recipient) !== reading) return;
        this.counts.delete(recipient);
        if (reading.again) this.refreshUnread(recipient);
      });
  }
}

function invalid(path: string, message: string): AppError {
  return new AppError('VALIDATION_FAILED', `${path.replace('body.', '')} ${message}`, { details: [{ path, message }] });
}
