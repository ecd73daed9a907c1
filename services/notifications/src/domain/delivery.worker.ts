import { setRepeatingTimer, withTimeout, type Timer } from '@homeops/common/core';
import { ConcurrencyLimit } from './concurrency-limit.js';
import { cancelledStage, failedDelivery, handedOverDelivery, interruptedDelivery, retryDelayMs, sentDelivery, type RetryPolicy } from './delivery-outcome.js';
import { FallbackDispatch } from './fallback-dispatch.js';
import type { FallbackChannels, FallbackSettings, FallbackTargetStatus } from './fallback.js';
import type { NotificationContext } from './notification-context.js';
import { hasPendingFallback, type ChannelState, type Delivery, type ExpiredDelivery, type NotificationRecord, type PendingDelivery } from './notification.js';
import { DeliveryError, type PushMessage, type PushProvider } from './push-provider.js';
import { toPushMessage } from './push-message.js';

/** The longest delay one Node timer holds (2^31 - 1 ms, about 24.8 days). */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

type AttemptResult = NotificationRecord | undefined;

/**
 * What the worker is doing for one delivery; a delivery it is not following has no entry. `outcome` is one the
 * provider gave but the history could not record yet: it is recorded on the next try, never re-sent.
 */
type Tracked =
  /** Waiting for its (next) attempt's timer. */
  | { kind: 'scheduled'; timer: Timer; outcome: Delivery | undefined }
  /** An attempt is under way and every caller joins `done`; `retry` is a retry timer armed before it settled. */
  | { kind: 'inFlight'; done: Promise<AttemptResult>; outcome: Delivery | undefined; retry: Timer | undefined }
  /** Neither waiting nor under way (an interrupted emergency being marked, or shut down), holding an outcome to record. */
  | { kind: 'unrecorded'; outcome: Delivery };

/** Settings of the delivery worker. */
export interface DeliverySettings extends RetryPolicy {
  /** Connections to the provider at once (Pushover allows 2). */
  concurrency: number;
  /** Upper bound of one attempt, beyond the provider adapter's own timeout. */
  attemptTimeoutMs: number;
  /** A delivery still pending this long after creation (or after its ttl, when shorter) is expired, never sent. */
  maxAgeMs?: number;
}

/**
 * Delivers pending notifications through the provider, at most once per successful send: each attempt is
 * persisted as `pending` with its count before the request goes out, and only `pending` records are ever sent.
 * Retryable failures are retried in the background with exponential backoff; pending records resume after a restart.
 */
export class DeliveryWorker {
  /** One entry per delivery the worker follows: its state and the data of that state. */
  private readonly tracked = new Map<string, Tracked>();
  private readonly limit: ConcurrencyLimit;
  /** Attempts read and claimed at once: twice the connections, so the next ones are claimed while these send. */
  private readonly pipeline: ConcurrencyLimit;
  /** The worker's own life cycle: running, also sweeping for deliveries left by other instances, or stopped. */
  private phase: { kind: 'running' } | { kind: 'sweeping'; sweeper: Timer } | { kind: 'stopped' } = { kind: 'running' };
  /** The recipients' second channels, when any recipient has one. */
  private readonly fallback: FallbackDispatch | undefined;
  /** The last write of each record's delivery: Pushover's and the fallbacks' writes of one record go in order. */
  private readonly writes = new Map<string, Promise<unknown>>();

  constructor(
    private readonly ctx: NotificationContext,
    private readonly provider: PushProvider,
    private readonly settings: DeliverySettings,
    fallback?: { channels: FallbackChannels; settings: FallbackSettings },
  ) {
    this.limit = new ConcurrencyLimit(settings.concurrency);
    this.pipeline = new ConcurrencyLimit(settings.concurrency * 2);
    this.fallback = fallback && new FallbackDispatch(ctx, fallback.channels, fallback.settings, (id, changed) => this.writeChannels(id, changed));
  }

  /**
   * Schedules every delivery a previous run left pending, each at its planned time. An emergency whose attempt was
   * under way when the process stopped may be ringing already: it becomes `unknown` instead of being sent again. A
   * fallback target left pending (handed over, or cut off before its send was recorded) is sent again now.
   */
  async resume(): Promise<number> {
    const pending = await this.ctx.repository.pending();
    const now = this.ctx.clock.now();
    let scheduled = 0;
    for (const record of pending) {
      const { delivery } = record;
      if (hasPendingFallback(delivery)) this.fallback?.trigger(record);
      if (delivery.status !== 'pending') continue;
      const state = this.tracked.get(record.id);
      if (state && state.kind !== 'unrecorded') continue;
      if (record.priority === 2 && delivery.status === 'pending' && delivery.attempts > 0 && delivery.nextAttemptAt === undefined) {
        void this.record(record.id, interruptedDelivery(delivery)).catch((err: unknown) =>
          this.ctx.logger.error({ err, id: record.id }, 'an interrupted emergency could not be recorded as unknown'),
        );
        continue;
      }
      const at = record.delivery.nextAttemptAt ? Date.parse(record.delivery.nextAttemptAt) : now;
      this.schedule(record.id, this.untilDue(record, at - now));
      scheduled += 1;
    }
    if (scheduled > 0) this.ctx.logger.info({ count: scheduled }, 'resuming pending deliveries');
    return scheduled;
  }

  /**
   * With a store shared by several instances, looks for deliveries no instance is following (left by one that
   * stopped or died: its claim expired) every `everyMs`, and takes them over.
   */
  startSweeping(everyMs: number): void {
    if (this.phase.kind !== 'running') return;
    const sweeper = setRepeatingTimer(
      this.ctx.clock,
      () => void this.resume().catch((err: unknown) => this.ctx.logger.error({ err }, 'looking for pending deliveries failed; will look again')),
      everyMs,
    );
    this.phase = { kind: 'sweeping', sweeper };
  }

  /** Runs the first attempt of a new record; resolves the record as stored once that attempt finished or timed out. */
  async deliverNow(record: NotificationRecord): Promise<NotificationRecord> {
    // A request is waiting for this one: it goes ahead of background retries.
    return (await this.attempt(record.id, true)) ?? record;
  }

  /** Starts the first attempt of a new record behind the urgent ones, without waiting for it (a batch of alerts). */
  deliverSoon(record: NotificationRecord): void {
    void this.attempt(record.id);
  }

  /**
   * A stage of an ended escalation chain (marked read) that may still be pending: one waiting for its attempt is ended
   * now as `cancelled` and never sent; one under way is waited for (what it sent, the chain's cancel_by_tag stops; if
   * it failed, it is cancelled instead of retried). Resolves the record as stored then.
   */
  async settleEndedStage(id: string): Promise<NotificationRecord | undefined> {
    // Twice at most: an attempt under way that fails leaves it pending for a retry, which the next attempt cancels.
    for (let round = 0; round < 2; round++) {
      const record = await this.ctx.repository.get(id);
      if (!record || record.delivery.status !== 'pending' || !cancelledStage(record, record.delivery)) return record;
      await this.attempt(id);
    }
    return this.ctx.repository.get(id);
  }

  /** Deliveries waiting for a retry timer, for /health. */
  get scheduled(): number {
    let count = 0;
    for (const state of this.tracked.values()) if (state.kind === 'scheduled' || (state.kind === 'inFlight' && state.retry)) count += 1;
    return count;
  }

  /** Each fallback target's last result (none without fallback targets), for /health. */
  get fallbackTargets(): FallbackTargetStatus[] {
    return this.fallback?.targets() ?? [];
  }

  /** Cancels timers and waits for attempts in progress; pending records stay pending for the next start. */
  async stop(): Promise<void> {
    if (this.phase.kind === 'sweeping') this.phase.sweeper.cancel();
    this.phase = { kind: 'stopped' };
    this.fallback?.stop();
    const flights: Promise<AttemptResult>[] = [];
    for (const [id, state] of this.tracked) {
      if (state.kind === 'scheduled') {
        state.timer.cancel();
        this.settleTo(id, undefined, state.outcome);
      } else if (state.kind === 'inFlight') {
        state.retry?.cancel();
        this.tracked.set(id, { ...state, retry: undefined });
        flights.push(state.done);
      }
    }
    await Promise.allSettled(flights);
  }

  /** The state of `id` once it is neither waiting nor under way: a retry timer, an outcome to record, or nothing. */
  private settleTo(id: string, timer: Timer | undefined, outcome: Delivery | undefined): void {
    if (timer) this.tracked.set(id, { kind: 'scheduled', timer, outcome });
    else if (outcome) this.tracked.set(id, { kind: 'unrecorded', outcome });
    else this.tracked.delete(id);
  }

  /**
   * Waits `delayMs`, however long: a wait for a monthly quota reset exceeds what one timer can hold (Node would fire
   * it after 1 ms), so it is waited out in steps.
   */
  private schedule(id: string, delayMs: number): void {
    if (this.phase.kind === 'stopped') return;
    const step = Math.min(Math.max(0, delayMs), LONGEST_TIMER_MS);
    const timer = this.ctx.clock.setTimer(() => {
      this.timerFired(id, timer);
      if (delayMs > step) this.schedule(id, delayMs - step);
      else void this.attempt(id);
    }, step);
    const state = this.tracked.get(id);
    if (state?.kind === 'inFlight') {
      state.retry?.cancel();
      this.tracked.set(id, { ...state, retry: timer });
    } else {
      if (state?.kind === 'scheduled') state.timer.cancel();
      this.tracked.set(id, { kind: 'scheduled', timer, outcome: state?.outcome });
    }
  }

  /** A timer of `id` fired: it no longer waits for it. */
  private timerFired(id: string, timer: Timer): void {
    const state = this.tracked.get(id);
    if (state?.kind === 'scheduled' && state.timer === timer) this.settleTo(id, undefined, state.outcome);
    else if (state?.kind === 'inFlight' && state.retry === timer) this.tracked.set(id, { ...state, retry: undefined });
  }

  /** Runs one attempt of `id`, or joins the one under way. */
  private attempt(id: string, urgent = false): Promise<AttemptResult> {
    const state = this.tracked.get(id);
    if (state?.kind === 'inFlight') return state.done;
    let start!: (work: Promise<AttemptResult>) => void;
    const done: Promise<AttemptResult> = new Promise<AttemptResult>((resolve) => {
      start = resolve;
    }).finally(() => {
      const landed = this.tracked.get(id);
      if (landed?.kind === 'inFlight' && landed.done === done) this.settleTo(id, landed.retry, landed.outcome);
    });
    // Under way before any of it runs (the limit may start it at once); a timer still armed stays armed.
    this.tracked.set(id, { kind: 'inFlight', done, outcome: state?.outcome, retry: state?.kind === 'scheduled' ? state.timer : undefined });
    start(
      this.runAttempt(id, urgent).catch((err: unknown) => {
        // Only the repository can fail here; the record stays pending and is retried.
        this.ctx.logger.error({ err, id }, 'delivery attempt could not be recorded');
        this.schedule(id, this.settings.minDelayMs);
        return this.ctx.repository.get(id);
      }),
    );
    return done;
  }

  /** Remembers (or, with `undefined`, forgets) the outcome of `id` not recorded yet, in whatever state it is. */
  private remember(id: string, outcome: Delivery | undefined): void {
    const state = this.tracked.get(id);
    if (state?.kind === 'scheduled' || state?.kind === 'inFlight') this.tracked.set(id, { ...state, outcome });
    else this.settleTo(id, undefined, outcome);
  }

  /**
   * One attempt: read and claim it (at most twice as many at once as the provider has connections, so the next ones
   * are claimed while these send), send it in one of the provider's connections (`limit`), then record the outcome
   * outside both, so the next send waits for neither write. At most `pipeline` attempts are claimed and not yet
   * answered: after a crash those are what an emergency's "cut off mid-send" (unknown, never resent) can cover.
   */
  private async runAttempt(id: string, urgent: boolean): Promise<AttemptResult> {
    const outcome = this.tracked.get(id)?.outcome;
    if (outcome) return this.record(id, outcome);
    const step = await this.pipeline.run(() => this.claimAndSend(id, urgent), urgent);
    return step.kind === 'done' ? step.result : this.record(id, step.delivery);
  }

  private async claimAndSend(id: string, urgent: boolean): Promise<{ kind: 'done'; result: AttemptResult } | { kind: 'sent'; delivery: Delivery }> {
    const record = await this.ctx.repository.get(id);
    // Deleted, already sent or failed, or shutting down: nothing to send, and never a second send.
    if (!record || record.delivery.status !== 'pending' || this.phase.kind === 'stopped') return { kind: 'done', result: record };
    const pending = record.delivery;
    const ended = cancelledStage(record, pending) ?? this.expiry(record, pending);
    if (ended) return { kind: 'sent', delivery: ended };
    const attempts = pending.attempts + 1;
    const startedAt = new Date(this.ctx.clock.now());
    const { error: _error, nextAttemptAt: _next, ...rest } = pending;
    // Another instance may have taken it (or sent it) since it was read: only the claim's winner sends.
    const claim = this.withChannels(id, { ...rest, status: 'pending', attempts, lastAttemptAt: startedAt.toISOString() });
    const claimed = await this.inOrder(id, () => this.ctx.repository.claimAttempt(id, claim));
    if (!claimed) return { kind: 'done', result: await this.ctx.repository.get(id) };
    this.fallback?.arm(record);
    let delivery: Delivery;
    try {
      const message: PushMessage = await toPushMessage(this.ctx, record);
      // Only the send holds one of the provider's connections.
      const receipt = await this.limit.run(
        () => withTimeout(this.ctx.clock, this.provider.send(message), this.settings.attemptTimeoutMs, 'Delivery attempt'),
        urgent,
      );
      delivery = sentDelivery(receipt, attempts, startedAt.toISOString());
    } catch (err) {
      // Waiting (a spent quota, the circuit open) helps nobody when a fallback can deliver now.
      const handOver = err instanceof DeliveryError && err.details.waitUntil !== undefined && this.fallback?.covers(pending.to);
      delivery = handOver
        ? handedOverDelivery(err, attempts, startedAt)
        : failedDelivery(err, attempts, startedAt, this.settings, new Date(this.ctx.clock.now()), record.priority);
    }
    // Where it goes and when it was resent stay on the record whatever the outcome.
    const { to, resentAt } = pending;
    // Known before it is written: a shutdown or a joined attempt finds it in `tracked`.
    const final: Delivery = { ...delivery, ...(to === undefined ? {} : { to }), ...(resentAt === undefined ? {} : { resentAt }) };
    this.remember(id, final);
    return { kind: 'sent', delivery: final };
  }

  /**
   * After an outage or a long downtime a phone must not get a burst of stale alerts: a delivery older than the
   * maximum age (or the notification's own ttl, when shorter) ends as `expired`.
   */
  private expiry(record: NotificationRecord, pending: PendingDelivery): ExpiredDelivery | undefined {
    const limit = this.ageLimitOf(record);
    if (limit === undefined) return undefined;
    const ageMs = this.ctx.clock.now() - limit.from;
    if (!(ageMs > limit.maxAgeMs)) return undefined;
    const { nextAttemptAt: _next, ...rest } = pending;
    return {
      ...rest,
      status: 'expired',
      error: `Not sent: still pending ${Math.round(ageMs / 1000)} s after creation, past the ${Math.round(limit.maxAgeMs / 1000)} s it may wait`,
    };
  }

  /** How long the delivery may stay pending (the maximum age, or its ttl when shorter), counted from creation or resend. */
  private ageLimitOf(record: NotificationRecord): { from: number; maxAgeMs: number } | undefined {
    const limits = [this.settings.maxAgeMs, record.ttl === undefined ? undefined : record.ttl * 1000].filter((n): n is number => n !== undefined);
    if (limits.length === 0) return undefined;
    return { from: Date.parse(record.delivery.resentAt ?? record.createdAt), maxAgeMs: Math.min(...limits) };
  }

  /** The wait before the next attempt, cut short where the delivery expires (a quota wait may end past that). */
  private untilDue(record: NotificationRecord, delayMs: number): number {
    const limit = this.ageLimitOf(record);
    if (limit === undefined) return Math.max(0, delayMs);
    const expiresInMs = limit.from + limit.maxAgeMs - this.ctx.clock.now() + 1;
    return Math.max(0, Math.min(delayMs, expiresInMs));
  }

  private async record(id: string, delivery: Delivery): Promise<AttemptResult> {
    this.remember(id, delivery);
    const updated = await this.inOrder(id, async () => this.ctx.repository.update(id, { delivery: await this.withStoredChannels(id, delivery) }));
    this.remember(id, undefined);
    if (!updated) return undefined;
    this.ctx.events.publish({ type: 'delivery', recipient: updated.recipient, notification: updated });
    if (delivery.status === 'sent' || delivery.status === 'cancelled') this.fallback?.disarm(id);
    // An emergency Pushover may or may not ring (`unknown`) is not sent there again, but a second channel may ring.
    else if (delivery.status === 'failed' || delivery.status === 'unknown') this.fallback?.trigger(updated);
    if (delivery.status === 'pending') {
      const at = delivery.nextAttemptAt ? Date.parse(delivery.nextAttemptAt) : NaN;
      this.schedule(id, this.untilDue(updated, Number.isNaN(at) ? retryDelayMs(this.settings, delivery.attempts) : at - this.ctx.clock.now()));
      this.ctx.logger.warn({ id, attempts: delivery.attempts, error: delivery.error }, 'delivery failed; will retry');
    } else if (delivery.status === 'failed' || delivery.status === 'unknown') {
      this.ctx.logger.warn(
        { id, attempts: delivery.attempts, error: delivery.error },
        delivery.status === 'unknown' ? 'emergency may have been delivered; not resent' : 'delivery failed permanently',
      );
    }
    return updated;
  }

  /** `delivery` with its `channels` when its recipient has fallback targets; unchanged otherwise. */
  private withChannels<D extends Delivery>(id: string, delivery: D): D {
    if (!this.fallback?.covers(delivery.to) || delivery.status === 'skipped') return delivery;
    return { ...delivery, channels: this.fallback.channelsOf(id, delivery) };
  }

  /**
   * `delivery` with its `channels`, the fallbacks' as last stored when they are not followed here. A delivery that
   * hands over to the fallbacks (failed or unknown) is written with every target not started yet as pending: a stop
   * right after this write still leaves the targets for the next start.
   */
  private async withStoredChannels(id: string, delivery: Delivery): Promise<Delivery> {
    if (!this.fallback?.covers(delivery.to) || delivery.status === 'skipped') return delivery;
    const stored = await this.ctx.repository.get(id);
    const handOver = delivery.status === 'failed' || delivery.status === 'unknown';
    return { ...delivery, channels: this.fallback.channelsOf(id, delivery, stored?.delivery.channels, handOver) };
  }

  /** Runs `write` after every earlier write of the same record's delivery. */
  private inOrder<T>(id: string, write: () => Promise<T>): Promise<T> {
    // Without fallbacks only the worker writes a delivery, one attempt at a time: nothing to order.
    if (!this.fallback) return write();
    const before = this.writes.get(id) ?? Promise.resolve();
    const done = before.then(write, write);
    const settled = done.then(
      () => undefined,
      () => undefined,
    );
    this.writes.set(id, settled);
    void settled.then(() => {
      if (this.writes.get(id) === settled) this.writes.delete(id);
    });
    return done;
  }

  /** A fallback target's state changed: the record's channels are written again and the change is announced. */
  private writeChannels(id: string, changed?: ChannelState): Promise<NotificationRecord | undefined> {
    return this.inOrder(id, async () => {
      const record = await this.ctx.repository.get(id);
      if (!record || record.delivery.status === 'skipped') return record;
      const updated = await this.ctx.repository.update(id, { delivery: this.withChannels(id, record.delivery) });
      if (updated) this.ctx.events.publish({ type: 'delivery', recipient: updated.recipient, notification: updated, ...(changed ? { channel: changed } : {}) });
      return updated;
    });
  }
}
