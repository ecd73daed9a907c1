import { withTimeout, type Timer } from '@homeops/common/core';
import { retryDelayMs } from './delivery-outcome.js';
import { DEFAULT_RECIPIENT_ALIAS, type FallbackChannels, type FallbackSettings, type FallbackTarget, type FallbackTargetStatus } from './fallback.js';
import type { ChannelState, Delivery, NotificationRecord } from './notification.js';
import type { NotificationContext } from './notification-context.js';
import { toPushMessage } from './push-message.js';

/** Writes the record's delivery again with the channel states of now, in order with every other write of it. */
export type ChannelWriter = (id: string, changed?: ChannelState) => Promise<NotificationRecord | undefined>;

/** The Pushover entry of `channels`: the delivery's own status. */
export function pushoverChannel(delivery: Delivery, now: string): ChannelState {
  const status = delivery.status === 'skipped' ? 'failed' : delivery.status;
  const error = 'error' in delivery && delivery.error !== undefined ? { error: delivery.error } : {};
  return { channel: 'pushover', status, attempts: delivery.attempts, at: delivery.lastAttemptAt ?? now, ...error };
}

/**
 * Sends a notification to its recipient's fallback targets once Pushover cannot deliver it (it ended failed, or has
 * not delivered `afterMs` after creation). Each target is sent at most once successfully: its state is recorded as
 * `pending` before each send, a failure is retried with backoff until `maxAttempts`, and a target with a state is
 * never started again.
 */
export class FallbackDispatch {
  /** Per notification: each fallback target's state, by target name. */
  private readonly states = new Map<string, Map<string, ChannelState>>();
  private readonly timers = new Map<string, Timer>();
  /** Targets being sent or waiting for their retry here (`id\0name`), and their retry timers. */
  private readonly followed = new Set<string>();
  private readonly retries = new Map<string, Timer>();
  private stopped = false;

  constructor(
    private readonly ctx: NotificationContext,
    private readonly channels: FallbackChannels,
    private readonly settings: FallbackSettings,
    private readonly write: ChannelWriter,
  ) {}

  /** True when the alias has fallback targets: its records carry `delivery.channels`. */
  covers(alias: string | undefined): boolean {
    return this.channels.targetsOf(alias ?? DEFAULT_RECIPIENT_ALIAS).length > 0;
  }

  /**
   * The `channels` of a delivery: Pushover's state, then each fallback target's, as followed here, else as `stored`
   * (the record's channels when it was read), else as the delivery has them. With `handOver`, every target without a
   * state yet becomes pending (0 attempts): the send to it is due.
   */
  channelsOf(id: string, delivery: Delivery, stored?: ChannelState[], handOver = false): ChannelState[] {
    const now = new Date(this.ctx.clock.now()).toISOString();
    if (handOver && !this.stopped) this.handOver(id, delivery.to ?? DEFAULT_RECIPIENT_ALIAS, stored ?? delivery.channels ?? [], now);
    const own = this.states.get(id);
    const rest = own ? [...own.values()] : (stored ?? delivery.channels ?? []).filter((c) => c.channel !== 'pushover');
    return [pushoverChannel(delivery, now), ...rest];
  }

  /** Starts the timer after which a notification Pushover has not delivered goes to the fallbacks too. */
  arm(record: NotificationRecord): void {
    const { id } = record;
    if (this.stopped || this.timers.has(id) || this.states.has(id) || !this.covers(record.delivery.to)) return;
    const dueMs = Date.parse(record.delivery.resentAt ?? record.createdAt) + this.settings.afterMs - this.ctx.clock.now();
    const timer = this.ctx.clock.setTimer(
      () => {
        this.timers.delete(id);
        void this.ifStillPending(id);
      },
      Math.max(0, dueMs),
    );
    this.timers.set(id, timer);
  }

  /** Pushover delivered it: the fallbacks are not needed. */
  disarm(id: string): void {
    this.timers.get(id)?.cancel();
    this.timers.delete(id);
  }

  /** Sends `record` to every fallback target of its recipient that has no state yet. */
  trigger(record: NotificationRecord): void {
    this.disarm(record.id);
    if (this.stopped) return;
    const alias = record.delivery.to ?? DEFAULT_RECIPIENT_ALIAS;
    const targets = this.channels.targetsOf(alias);
    if (targets.length === 0) return;
    const own = this.adopt(record);
    for (const target of targets) {
      const state = own.get(target.name);
      if (state?.status === 'sent' || state?.status === 'failed') continue;
      // A target pending in the store was cut off by a restart: it is retried (the same attempt count goes on).
      if (state && this.followed.has(`${record.id}\0${target.name}`)) continue;
      void this.send(record.id, alias, target, state?.attempts ?? 0);
    }
  }

  /** Each fallback target's last result, for /health. */
  targets(): FallbackTargetStatus[] {
    return this.channels.status();
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers.values()) timer.cancel();
    this.timers.clear();
    for (const timer of this.retries.values()) timer.cancel();
    this.retries.clear();
  }

  /** The states of `record`'s targets, taken from the store the first time. */
  private adopt(record: NotificationRecord): Map<string, ChannelState> {
    return this.adoptStates(record.id, record.delivery.channels ?? []);
  }

  private adoptStates(id: string, channels: ChannelState[]): Map<string, ChannelState> {
    let own = this.states.get(id);
    if (!own) {
      own = new Map(channels.filter((c) => c.channel !== 'pushover').map((c) => [c.target ?? c.channel, c]));
      this.states.set(id, own);
    }
    return own;
  }

  /** Every target of `alias` without a state yet is due: pending, not tried. */
  private handOver(id: string, alias: string, stored: ChannelState[], at: string): void {
    const targets = this.channels.targetsOf(alias);
    if (targets.length === 0) return;
    const own = this.adoptStates(id, stored);
    for (const target of targets) {
      if (!own.has(target.name)) own.set(target.name, { channel: target.channel, target: target.name, status: 'pending', attempts: 0, at });
    }
  }

  private async ifStillPending(id: string): Promise<void> {
    const record = await this.ctx.repository.get(id).catch(() => undefined);
    if (record?.delivery.status !== 'pending' && record?.delivery.status !== 'unknown') return;
    this.ctx.logger.warn({ id, afterMs: this.settings.afterMs }, 'Pushover has not delivered in time; using the fallback targets');
    this.trigger(record);
  }

  private async send(id: string, alias: string, target: FallbackTarget, before: number): Promise<void> {
    const key = `${id}\0${target.name}`;
    this.followed.add(key);
    const own = this.states.get(id)!;
    const attempts = before + 1;
    const at = () => new Date(this.ctx.clock.now()).toISOString();
    const base = { channel: target.channel, target: target.name };
    let state: ChannelState = { ...base, status: 'pending', attempts, at: at() };
    try {
      own.set(target.name, state);
      // Recorded as under way before it goes out: a target with a state is never started twice.
      const record = await this.write(id, state);
      if (!record || this.stopped) return void this.followed.delete(key);
      const message = await toPushMessage(this.ctx, record);
      await withTimeout(this.ctx.clock, this.channels.send(alias, target, message), this.settings.timeoutMs, `Sending to ${target.name}`);
      state = { ...base, status: 'sent', attempts, at: at() };
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      state = { ...base, status: attempts >= this.settings.maxAttempts ? 'failed' : 'pending', attempts, at: at(), error };
    }
    own.set(target.name, state);
    await this.write(id, state).catch((err: unknown) => this.ctx.logger.error({ err, id }, 'a fallback result could not be recorded'));
    if (state.status !== 'pending' || this.stopped) {
      if (state.status === 'failed') this.ctx.logger.warn({ id, target: target.name, error: state.error }, 'fallback target failed for good');
      this.followed.delete(key);
      // Every target has its final state in the store now: nothing of it is kept here.
      if ([...own.values()].every((s) => s.status === 'sent' || s.status === 'failed')) this.states.delete(id);
      return;
    }
    const retry = this.ctx.clock.setTimer(
      () => {
        this.retries.delete(key);
        void this.send(id, alias, target, attempts);
      },
      retryDelayMs(this.settings, attempts),
    );
    this.retries.set(key, retry);
  }
}
