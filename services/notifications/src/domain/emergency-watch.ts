import { isoNow, withTimeout, type Timer } from '@homeops/common/core';
import type { NotificationContext } from './notification-context.js';
import type { NotificationEvent } from './notification-events.js';
import { endAlarm, isRinging, readSince, type AcknowledgedAlarm, type CancelledAlarm, type ExpiredAlarm, type NotificationRecord } from './notification.js';
import type { ReceiptApi, ReceiptStatus } from './push-provider.js';

/** Settings of the emergency watch. */
export interface EmergencyWatchSettings {
  /** Time between two checks of one receipt; Pushover asks for no more than one every 5 s. */
  pollMs: number;
  /** Upper bound of one receipts call, beyond the adapter's own timeout. */
  callTimeoutMs: number;
}

/** Pushover's rule: one check of a receipt per 5 s at most, whatever asks for it (the poll, a read, a restart). */
const MIN_CHECK_GAP_MS = 5_000;

/** Failed cancels are tried again this often, and at most this many times, while the record is gone. */
const CANCEL_RETRY_MS = 30_000;
const CANCEL_TRIES = 10;

interface Watched {
  receipt: string;
  recipient: string;
  timer?: Timer;
  cancelTries: number;
  /** Deleted here: only the cancel is left to do. */
  deleted: boolean;
  /** When this run last asked Pushover about the receipt (clock ms). */
  checkedAt?: number;
}

/**
 * Follows every ringing emergency (priority 2) through Pushover's receipts API until it is acknowledged, expires or
 * is cancelled: an acknowledgement marks it read (event `acknowledged`); reading or deleting it here first cancels
 * the alarm at Pushover (event `alarm-ended`, as for an expiry). After a restart the ringing ones are followed again.
 */
export class EmergencyWatch {
  private readonly watched = new Map<string, Watched>();
  private readonly running = new Set<Promise<void>>();
  private unsubscribe: (() => void) | undefined;
  private stopped = false;

  constructor(
    private readonly ctx: NotificationContext,
    private readonly receipts: ReceiptApi,
    private readonly settings: EmergencyWatchSettings,
  ) {}

  /** Follows what a previous run left ringing and every emergency sent from now on; returns how many it resumed. */
  async start(): Promise<number> {
    this.unsubscribe ??= this.ctx.events.subscribeAll((event, _id, remote) => this.onEvent(event, remote));
    const ringing = await this.ctx.repository.ringing();
    // Spread over one poll interval, so a restart with many does not fire them all at once; none sooner than the gap,
    // as the previous run may have checked it just before it stopped.
    const spread = (i: number) => Math.round((this.settings.pollMs * i) / Math.max(1, ringing.length));
    ringing.forEach((record, i) => this.follow(record, this.gapMs + spread(i)));
    return ringing.length;
  }

  /** Emergencies being followed, for /health. */
  get size(): number {
    return this.watched.size;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    for (const entry of this.watched.values()) entry.timer?.cancel();
    await this.settled();
  }

  /** Resolves once no check or cancel is under way (those its timers started so far). */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /** The instance that sent an emergency follows it; a read or delete through any instance ends it. */
  private onEvent(event: NotificationEvent, remote: boolean): void {
    if (event.type === 'delivery' && !remote && isRinging(event.notification)) this.follow(event.notification, this.settings.pollMs);
    else if (event.type === 'read' && this.watched.has(event.notification.id)) this.checkNow(event.notification.id);
    else if (event.type === 'read-all') {
      for (const [id, entry] of this.watched) if (entry.recipient === event.recipient) this.checkNow(id);
    } else if ((event.type === 'alarm-ended' || event.type === 'acknowledged') && !isRinging(event.notification)) {
      // Ended elsewhere (an alert's resolve, another instance): nothing is left to follow, and /metrics says so now.
      this.forget(event.notification.id);
    } else if (event.type === 'deleted') {
      const entry = this.watched.get(event.id);
      if (entry) {
        entry.deleted = true;
        this.checkNow(event.id);
      }
    }
  }

  private follow(record: NotificationRecord, delayMs: number): void {
    if (this.stopped || record.delivery.receipt === undefined || this.watched.has(record.id)) return;
    this.watched.set(record.id, { receipt: record.delivery.receipt, recipient: record.recipient, cancelTries: 0, deleted: false });
    this.schedule(record.id, delayMs);
  }

  private forget(id: string): void {
    this.watched.get(id)?.timer?.cancel();
    this.watched.delete(id);
  }

  private checkNow(id: string): void {
    this.schedule(id, 0);
  }

  /** The shortest time between two checks of one receipt: the poll interval, never more than Pushover's 5 s. */
  private get gapMs(): number {
    return Math.min(this.settings.pollMs, MIN_CHECK_GAP_MS);
  }

  /** Looks again after `delayMs`, but not sooner than the gap after the last check (a cancel only needs no check). */
  private schedule(id: string, delayMs: number): void {
    const entry = this.watched.get(id);
    if (!entry || this.stopped) return;
    if (!entry.deleted && entry.checkedAt !== undefined) delayMs = Math.max(delayMs, entry.checkedAt + this.gapMs - this.ctx.clock.now());
    entry.timer?.cancel();
    entry.timer = this.ctx.clock.setTimer(() => {
      const run = this.check(id).finally(() => this.running.delete(run));
      this.running.add(run);
    }, delayMs);
  }

  /** One look at the alarm: cancel it when it was read or deleted here, else ask Pushover where it stands. */
  private async check(id: string): Promise<void> {
    const entry = this.watched.get(id);
    if (!entry) return;
    let record: NotificationRecord | undefined;
    try {
      record = await this.ctx.repository.get(id);
    } catch (err) {
      this.ctx.logger.warn({ err, id }, 'emergency could not be read; trying again');
      return this.schedule(id, this.settings.pollMs);
    }
    if (!entry.deleted && (!record || !isRinging(record))) return void this.watched.delete(id);
    try {
      if (entry.deleted || !record) await this.cancel(id, entry);
      else await this.poll(id, record);
    } catch (err) {
      this.ctx.logger.warn({ err, id }, 'emergency receipt call failed; trying again');
      if (entry.deleted && ++entry.cancelTries >= CANCEL_TRIES) return void this.watched.delete(id);
      this.schedule(id, entry.deleted ? CANCEL_RETRY_MS : this.settings.pollMs);
    }
  }

  /** Acknowledged or expired is recorded as Pushover says; still ringing but read here: cancelled. */
  private async poll(id: string, record: NotificationRecord): Promise<void> {
    const entry = this.watched.get(id);
    if (entry) entry.checkedAt = this.ctx.clock.now();
    const status = await this.call(this.receipts.checkReceipt(record.delivery.receipt!), 'Receipt check');
    if (status.acknowledged) return this.acknowledged(id, record, status);
    if (status.expired) return this.ended(id, record, { expiredAt: status.expiresAt ?? isoNow(this.ctx.clock) });
    if (!record.read) return this.schedule(id, this.settings.pollMs);
    await this.call(this.receipts.cancelReceipt(record.delivery.receipt!), 'Receipt cancel');
    await this.ended(id, record, { cancelledAt: isoNow(this.ctx.clock) });
  }

  private async cancel(id: string, entry: Watched): Promise<void> {
    await this.call(this.receipts.cancelReceipt(entry.receipt), 'Receipt cancel');
    this.watched.delete(id);
  }

  private async acknowledged(id: string, record: NotificationRecord, status: ReceiptStatus): Promise<void> {
    const acknowledgedAt = status.acknowledgedAt ?? isoNow(this.ctx.clock);
    const by = status.acknowledgedBy ?? `a member of ${record.delivery.to ?? 'default'}`;
    const end: AcknowledgedAlarm = { acknowledgedAt, acknowledgedBy: by };
    if (status.acknowledgedByDevice) end.acknowledgedByDevice = status.acknowledgedByDevice;
    const emergency = endAlarm(record.emergency!, end);
    const updated = await this.ctx.repository.update(id, { emergency, ...readSince(record.readAt ?? acknowledgedAt) });
    this.watched.delete(id);
    if (updated) this.ctx.events.publish({ type: 'acknowledged', recipient: updated.recipient, notification: updated });
  }

  private async ended(id: string, record: NotificationRecord, end: ExpiredAlarm | CancelledAlarm): Promise<void> {
    const updated = await this.ctx.repository.update(id, { emergency: endAlarm(record.emergency!, end) });
    this.watched.delete(id);
    if (updated) this.ctx.events.publish({ type: 'alarm-ended', recipient: updated.recipient, notification: updated });
  }

  private call<T>(work: Promise<T>, what: string): Promise<T> {
    return withTimeout(this.ctx.clock, work, this.settings.callTimeoutMs, what);
  }
}
