import { AppError, isAppError, type Timer } from '@homeops/common/core';
import type { AlertHooks, AlertSender } from '../alert-hooks.js';
import { createNotification, type CreateDeps, type NewNotification } from '../create-notification.use-case.js';
import type { NotificationContext } from '../notification-context.js';
import { plannedNotificationId } from '../notification-id.js';
import type { AlertIdentity, NotificationRecord } from '../notification.js';
import type { ReceiptApi } from '../push-provider.js';
import { EscalationChains } from './escalation-chains.js';
import { dueAt, type Heartbeat, type Plan, type PlanStore, type PlannedNotification, type ScheduledSend, type StoredPlan } from './plan.js';

/** Longest a send may be scheduled ahead, and the bounds of a heartbeat's interval. */
export const MAX_SCHEDULE_MS = 7 * 24 * 3_600_000;
export const HEARTBEAT_INTERVAL_MS = { min: 10_000, max: 7 * 24 * 3_600_000 };
/** Scheduled sends and heartbeats kept at most, together: each change rewrites them all. */
export const MAX_PLANS = 10_000;
/** Kept at most for one recipient, so a token limited to one inbox cannot take the whole MAX_PLANS from the others. */
export const MAX_PLANS_PER_RECIPIENT = 1_000;
/** How often the plans are read again, so one instance sees what another changed (and restarts resume). */
const RESCAN_MS = 30_000;
/** How long a claim holds: past it, the plan is taken up again (its instance died before it finished). */
const CLAIM_MS = 120_000;

/**
 * Throws unless the caller may change (replace, cancel) this plan: a plan belongs to its recipient. Given by the
 * caller's side, which knows who calls; the planner calls it with the plan as stored before it changes anything.
 */
export type AssertMayChange = (plan: StoredPlan) => void;

export interface PlannerDeps {
  ctx: NotificationContext;
  create: CreateDeps;
  alerts: AlertHooks;
  store: PlanStore;
  /** Pushover's receipts API: an escalation chain's end cancels its stages by tag. */
  receipts?: ReceiptApi | undefined;
  /** Upper bound of one receipts call; default 15 s. */
  callTimeoutMs?: number;
}

/**
 * Scheduled sends and heartbeats: kept in the plan store, acted on when due by whichever instance claims the plan's
 * version first, so each goes out once, also after `kill -9` (a send's notification id is fixed by its plan, so a
 * retry after a crash finds it stored instead of sending it again).
 */
export class Planner {
  private timer: Timer | undefined;
  private timerAt = Infinity;
  private stopped = false;
  private readonly running = new Set<Promise<void>>();
  private readonly chains: EscalationChains;
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly deps: PlannerDeps) {
    const { ctx, create, store, receipts } = deps;
    this.chains = new EscalationChains({ ctx, create, store, receipts, callTimeoutMs: deps.callTimeoutMs ?? 15_000, arm: (at) => this.arm(at) });
  }

  async start(): Promise<void> {
    // Every instance hears every end (the relay brings the others'); the plan's version lets one of them act on it.
    this.unsubscribe ??= this.deps.ctx.events.subscribeAll((event) => {
      const work = this.chains.onEvent(event);
      if (work) this.track(work, 'an escalation chain could not be ended; it is tried again at the next scan');
    });
    await this.scan();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    this.timer?.cancel();
    await this.settled();
  }

  /** Creates a priority-2 emergency that goes on to its `escalate` steps while nobody acknowledges it. */
  escalate(input: NewNotification, given?: { waitForDelivery?: boolean; alert?: AlertIdentity; id?: string }): Promise<NotificationRecord> {
    return this.chains.start(input, given);
  }

  /** Resolves once nothing it started is under way. */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  list(): Promise<StoredPlan[]> {
    return this.deps.store.list();
  }

  get(kind: Plan['kind'], key: string): Promise<StoredPlan | undefined> {
    return this.deps.store.get(kind, key);
  }

  /** Schedules (or changes) the send under the client's key, at a time or after a delay on the service's clock. */
  async schedule(
    key: string,
    when: { at: number } | { delayMs: number },
    notification: PlannedNotification,
    assertMayChange: AssertMayChange,
  ): Promise<StoredPlan> {
    const now = this.now();
    const sendAt = 'at' in when ? when.at : now + when.delayMs;
    if (sendAt > now + MAX_SCHEDULE_MS) throw invalid('body.sendAt', `must be at most ${MAX_SCHEDULE_MS / 86_400_000} days ahead`);
    return this.write('send', key, notification.recipient, assertMayChange, (existing): ScheduledSend => ({
      kind: 'send',
      key,
      sendAt: Math.max(sendAt, now),
      notification,
      createdAt: existing?.createdAt ?? now,
    }));
  }

  async heartbeat(
    key: string,
    settings: { intervalMs: number; graceMs: number; notification: PlannedNotification; recoveredNote: boolean },
    assertMayChange: AssertMayChange,
  ): Promise<StoredPlan> {
    const now = this.now();
    return this.write('heartbeat', key, settings.notification.recipient, assertMayChange, (existing): Heartbeat => {
      const kept = existing?.kind === 'heartbeat' ? { lastPingAt: existing.lastPingAt, status: existing.status, createdAt: existing.createdAt } : undefined;
      return {
        kind: 'heartbeat',
        key,
        ...settings,
        lastPingAt: kept?.lastPingAt ?? now,
        status: kept?.status ?? { state: 'up' },
        createdAt: kept?.createdAt ?? now,
      };
    });
  }

  /**
   * Stores what `build` makes of the plan under the key, in place of exactly the version that was checked (or only if
   * there is still none): a plan another caller or instance made or changed in between is checked again, never
   * overwritten unchecked.
   */
  private async write(
    kind: Plan['kind'],
    key: string,
    recipient: string,
    assertMayChange: AssertMayChange,
    build: (existing: StoredPlan | undefined) => Plan,
  ): Promise<StoredPlan> {
    return untilSwapped(kind, 'send it again', async () => {
      const existing = await this.existing(kind, key, recipient, assertMayChange);
      const plan = build(existing);
      const version = existing?.version ?? 0;
      return (await this.deps.store.swap(kind, key, version, plan)) ? this.changed({ ...plan, version: version + 1 }) : LOST;
    });
  }

  /** A ping: the heartbeat is up again from now; a ping that ends an episode cancels its alarm (and says "recovered"). */
  async ping(key: string): Promise<StoredPlan> {
    return untilSwapped('heartbeat', 'ping again', async () => {
      const current = await this.deps.store.get('heartbeat', key);
      if (current?.kind !== 'heartbeat') throw planNotFound('heartbeat', key);
      const next: Heartbeat = { ...stripVersion(current), lastPingAt: this.now(), status: { state: 'up' } };
      if (!(await this.deps.store.swap('heartbeat', key, current.version, next))) return LOST;
      if (current.status.state === 'down') await this.signal(current, 'resolved', current.status.missedAt);
      this.arm(dueAt(next));
      return { ...next, version: current.version + 1 };
    });
  }

  /** Removes the plan if the caller may change it: the version it checked and no other (one changed since is checked again). */
  async cancel(kind: Plan['kind'], key: string, assertMayChange: AssertMayChange): Promise<void> {
    await untilSwapped(kind, 'cancel again', async () => {
      const existing = await this.deps.store.get(kind, key);
      if (!existing) throw planNotFound(kind, key);
      assertMayChange(existing);
      return (await this.deps.store.swap(kind, key, existing.version, undefined)) ? true : LOST;
    });
  }

  /**
   * The plan stored under the key, once the caller may change it and there is room for what it becomes: a new plan
   * past MAX_PLANS, or one more for a recipient past MAX_PLANS_PER_RECIPIENT, is refused (a change that keeps its
   * recipient always passes).
   */
  private async existing(kind: Plan['kind'], key: string, recipient: string, assertMayChange: AssertMayChange): Promise<StoredPlan | undefined> {
    const existing = await this.deps.store.get(kind, key);
    if (existing) assertMayChange(existing);
    if (existing?.notification.recipient === recipient) return existing;
    if ((await this.deps.store.countFor(recipient)) >= MAX_PLANS_PER_RECIPIENT) {
      throw new AppError('LIMIT_REACHED', `At most ${MAX_PLANS_PER_RECIPIENT} scheduled sends and heartbeats are kept for one recipient`);
    }
    if (!existing && (await this.deps.store.count()) >= MAX_PLANS) {
      throw new AppError('LIMIT_REACHED', `At most ${MAX_PLANS} scheduled sends and heartbeats are kept together`);
    }
    return existing;
  }

  private now(): number {
    return this.deps.ctx.clock.now();
  }

  private changed(plan: StoredPlan): StoredPlan {
    this.arm(dueAt(plan));
    return plan;
  }

  /** Reads every plan, acts on the due ones, and sleeps until the next one (or the next rescan). */
  private async scan(): Promise<void> {
    if (this.stopped) return;
    let plans: StoredPlan[] = [];
    try {
      plans = await this.deps.store.list();
    } catch (err) {
      this.deps.ctx.logger.warn({ err }, 'plans could not be read; trying again');
    }
    const now = this.now();
    let next = now + RESCAN_MS;
    for (const plan of plans) {
      const at = dueAt(plan);
      if (at <= now) this.run(plan);
      else next = Math.min(next, at);
    }
    this.timerAt = Infinity;
    this.arm(next);
  }

  private arm(at: number): void {
    if (this.stopped || at >= this.timerAt) return;
    this.timer?.cancel();
    this.timerAt = at;
    this.timer = this.deps.ctx.clock.setTimer(
      () => {
        this.timerAt = Infinity;
        void this.scan();
      },
      Math.max(0, at - this.now()),
    );
  }

  private run(plan: StoredPlan): void {
    const work = plan.kind === 'send' ? this.send(plan) : plan.kind === 'heartbeat' ? this.missed(plan) : this.chains.run(plan);
    this.track(work, 'a planned notification failed; it is tried again at the next scan', { kind: plan.kind, key: plan.key });
  }

  private track(work: Promise<void>, failure: string, about?: object): void {
    const run = work.catch((err: unknown) => this.deps.ctx.logger.warn({ err, ...about }, failure)).finally(() => this.running.delete(run));
    this.running.add(run);
  }

  /** Claims the send (its version), then creates its notification under a fixed id and drops the plan. */
  private async send(plan: StoredPlan & ScheduledSend): Promise<void> {
    // If this instance dies before dropping the plan, whichever runs next takes it up after the claim lapses.
    const claimed: ScheduledSend = { ...stripVersion(plan), attemptAfter: this.now() + CLAIM_MS };
    if (!(await this.deps.store.swap('send', plan.key, plan.version, claimed))) return;
    const id = plannedNotificationId(plan.sendAt, `send:${plan.key}:${plan.createdAt}`);
    try {
      await createNotification(this.deps.ctx, this.deps.create, plan.notification, { id });
    } catch (err) {
      if (!(isAppError(err) && err.code === 'NOTIFICATION_EXISTS')) throw err;
    }
    await this.deps.store.swap('send', plan.key, plan.version + 1, undefined);
  }

  /**
   * A heartbeat past its grace: claims the episode, sends its notification (an alert its next ping resolves) under an
   * id fixed by the episode, then records it sent; a crash in between sends it on the next try, never twice.
   */
  private async missed(plan: StoredPlan & Heartbeat): Promise<void> {
    const missedAt = plan.status.state === 'down' ? plan.status.missedAt : dueAt(plan);
    const claimed: Heartbeat = { ...stripVersion(plan), status: { state: 'down', missedAt, sent: false, attemptAfter: this.now() + CLAIM_MS } };
    if (!(await this.deps.store.swap('heartbeat', plan.key, plan.version, claimed))) return;
    await this.signal(plan, 'firing', missedAt);
    await this.deps.store.swap('heartbeat', plan.key, plan.version + 1, { ...claimed, status: { state: 'down', missedAt, sent: true } });
  }

  private async signal(plan: Heartbeat, state: 'firing' | 'resolved', missedAt: number): Promise<void> {
    const episode = `${plan.key}:${missedAt}`;
    const id = state === 'firing' ? plannedNotificationId(missedAt, `heartbeat:${plan.key}:${plan.createdAt}:${missedAt}`) : undefined;
    await this.deps.alerts.receive('heartbeat', [{ state, identity: episode, notification: plan.notification, ...(id ? { id } : {}) }], {
      resolvedNote: plan.recoveredNote,
      sender: HEARTBEAT_SENDER,
    });
  }
}

/** The planner fires and resolves its heartbeats' alerts itself; a webhook's sender never matches it. */
const HEARTBEAT_SENDER: AlertSender = { id: 'heartbeat', resolvesAny: false };

function stripVersion<P extends Plan>(plan: P & { version: number }): P {
  const { version: _version, ...rest } = plan;
  return rest as unknown as P;
}

const kindName = (kind: Plan['kind']) => (kind === 'send' ? 'scheduled send' : kind === 'heartbeat' ? 'heartbeat' : 'escalation');

/** The answer for a plan that is not there; also for one of a recipient the caller may not see. */
/** What an attempt of untilSwapped returns when another writer changed the plan between its read and its swap. */
const LOST = Symbol('lost');
/** Each lost swap means another writer won; past this many the caller is told to try again. */
const MAX_SWAP_ATTEMPTS = 5;

/** Runs `attempt` again while it loses its swap, at most MAX_SWAP_ATTEMPTS times; then SERVER_BUSY, saying to `again`. */
async function untilSwapped<T>(kind: Plan['kind'], again: string, attempt: () => Promise<T | typeof LOST>): Promise<T> {
  for (let i = 0; i < MAX_SWAP_ATTEMPTS; i++) {
    const result = await attempt();
    if (result !== LOST) return result;
  }
  throw new AppError('SERVER_BUSY', `The ${kindName(kind)} changed too often at once; ${again}`, { retryAfterSeconds: 1 });
}

export function planNotFound(kind: Plan['kind'], key: string): AppError {
  return new AppError('PLAN_NOT_FOUND', `No ${kindName(kind)} "${key}"`);
}

function invalid(path: string, message: string): AppError {
  return new AppError('VALIDATION_FAILED', `${path.replace('body.', '')} ${message}`, { details: [{ path, message }] });
}
