import { AppError, isAppError, isoNow, withTimeout } from '@homeops/common/core';
import { ALERT_TAG_PREFIX } from '../alert-identity.js';
import { createNotification, routeOf, type CreateDeps, type EscalationStep, type NewNotification } from '../create-notification.use-case.js';
import type { NotificationContext } from '../notification-context.js';
import type { NotificationEvent } from '../notification-events.js';
import { newNotificationId, plannedNotificationId } from '../notification-id.js';
import { endAlarm, isRinging, readSince, type AlertIdentity, type NotificationRecord } from '../notification.js';
import type { ReceiptApi } from '../push-provider.js';
import { dueAt, type ChainEnd, type Escalation, type PlanStore, type StoredPlan } from './plan.js';

/** The bounds of a chain: steps at most, and the shortest wait of a step. */
export const MAX_ESCALATION_STEPS = 5;
export const MIN_ESCALATION_SECONDS = 60;
/** How long a claim on a step or an end holds before another run takes it up (its instance died). */
const CLAIM_MS = 120_000;
/** Pushover's longest expire of an emergency. */
const MAX_EXPIRE_SECONDS = 10_800;

export interface EscalationDeps {
  ctx: NotificationContext;
  create: CreateDeps;
  store: PlanStore;
  /** Pushover's receipts API (cancel_by_tag); undefined with delivery off. */
  receipts?: ReceiptApi | undefined;
  callTimeoutMs: number;
  /** Tells the planner when a chain next has something to do. */
  arm: (at: number) => void;
}

type StoredChain = StoredPlan & Escalation;

function invalid(path: string, message: string): AppError {
  return new AppError('VALIDATION_FAILED', `${path.replace('body.', '')} ${message}`, { details: [{ path, message }] });
}

/** Refuses a chain on another priority than 2, of too many steps, or with waits that are short or not increasing. */
export function assertEscalation(priority: number, steps: readonly EscalationStep[]): void {
  if (priority !== 2) throw invalid('body.escalate', 'applies to emergency notifications only (priority 2)');
  if (steps.length < 1 || steps.length > MAX_ESCALATION_STEPS) throw invalid('body.escalate', `must have 1 to ${MAX_ESCALATION_STEPS} steps`);
  steps.forEach((step, i) => {
    if (!Number.isInteger(step.afterSeconds) || step.afterSeconds < MIN_ESCALATION_SECONDS) {
      throw invalid(`body.escalate.${i}.afterSeconds`, `must be a whole number of seconds, at least ${MIN_ESCALATION_SECONDS}`);
    }
    if (i > 0 && step.afterSeconds <= steps[i - 1]!.afterSeconds) throw invalid(`body.escalate.${i}.afterSeconds`, 'must be more than the step before');
  });
}

/** The id of stage `step` (≥ 1): fixed by the chain, so a retry after a crash finds it stored instead of sending it twice. */
function stageId(chain: Escalation, step: number): string {
  return plannedNotificationId(chain.startedAt + chain.steps[step - 1]!.afterSeconds * 1000, `escalation:${chain.key}:${step}`);
}

function stripVersion(plan: StoredChain): Escalation {
  const { version: _version, ...rest } = plan;
  return rest;
}

/**
 * Escalation chains: an emergency that goes on to the next recipient while nobody acknowledges it. Each step and the
 * chain's end are claimed through the plan's version (as scheduled sends are), so with several instances and after
 * `kill -9` a step goes out once and the end costs one cancel_by_tag.
 */
export class EscalationChains {
  constructor(private readonly deps: EscalationDeps) {}

  /**
   * Stores the chain of `input.escalate`, then creates its first notification (step 0) as createNotification does with
   * `given`; a first that is refused takes its chain with it.
   */
  async start(input: NewNotification, given: { waitForDelivery?: boolean; alert?: AlertIdentity; id?: string } = {}): Promise<NotificationRecord> {
    const steps = input.escalate ?? [];
    assertEscalation(input.priority, steps);
    for (const step of steps) routeOf(this.deps.create, step.recipient);
    const now = this.deps.ctx.clock.now();
    const id = given.id ?? newNotificationId(new Date(now));
    const { attachment: _attachment, escalate: _escalate, ...notification } = input;
    const chain: Escalation = {
      kind: 'escalation',
      key: id,
      notification,
      steps,
      startedAt: now,
      tag: `${ALERT_TAG_PREFIX}chain-${id.toLowerCase()}`,
      sent: 0,
      createdAt: now,
    };
    await this.deps.store.put(chain);
    try {
      const planned = steps.map(({ recipient, afterSeconds }, i) => ({ recipient, afterSeconds, id: stageId(chain, i + 1) }));
      const escalation = { of: id, step: 0, tag: chain.tag, steps: planned };
      const record = await createNotification(this.deps.ctx, this.deps.create, input, { ...given, id, escalation });
      this.deps.arm(chain.startedAt + steps[0]!.afterSeconds * 1000);
      return record;
    } catch (err) {
      await this.deps.store.remove('escalation', id).catch(() => undefined);
      throw err;
    }
  }

  /** What ends a chain: an acknowledgement of any stage; reading, deleting or resolving its first notification. */
  onEvent(event: NotificationEvent): Promise<void> | undefined {
    if (event.type === 'deleted') return this.end(event.id, { kind: 'cancelled', at: isoNow(this.deps.ctx.clock) });
    if (event.type === 'read-all') return this.endReadChains(event.recipient);
    if (!event.notification.escalation) return undefined;
    const { notification: record } = event;
    const { of, step } = record.escalation!;
    const emergency = record.emergency;
    if (event.type === 'acknowledged' && emergency?.acknowledgedAt !== undefined) {
      const by = emergency.acknowledgedBy ?? 'someone';
      return this.end(of, { kind: 'acknowledged', at: emergency.acknowledgedAt, by, byDevice: emergency.acknowledgedByDevice });
    }
    const firstEnded = (event.type === 'read' || (event.type === 'alarm-ended' && emergency?.cancelledAt !== undefined)) && step === 0;
    return firstEnded ? this.end(of, { kind: 'cancelled', at: isoNow(this.deps.ctx.clock) }) : undefined;
  }

  /** A read-all of a recipient cancels the chains whose first notification it read. */
  private async endReadChains(recipient: string): Promise<void> {
    const chains = (await this.deps.store.list()).filter((plan) => plan.kind === 'escalation' && !plan.end && plan.notification.recipient === recipient);
    for (const chain of chains) {
      const first = await this.deps.ctx.repository.get(chain.key);
      if (first?.read) await this.end(chain.key, { kind: 'cancelled', at: first.readAt ?? isoNow(this.deps.ctx.clock) });
    }
  }

  /** A due chain: its end to finish, or its next step to send. */
  async run(plan: StoredChain): Promise<void> {
    const claimed: Escalation = { ...stripVersion(plan), attemptAfter: this.deps.ctx.clock.now() + CLAIM_MS };
    if (!(await this.deps.store.swap('escalation', plan.key, plan.version, claimed))) return;
    if (plan.end) return this.finish({ ...claimed, version: plan.version + 1 });
    const ended = await this.endSeen(plan);
    if (ended) {
      const next: Escalation = { ...claimed, end: ended };
      if (await this.deps.store.swap('escalation', plan.key, plan.version + 1, next)) await this.finish({ ...next, version: plan.version + 2 });
      return;
    }
    // Every step went out and every alarm has stopped at Pushover: nothing is left to end.
    if (plan.sent >= plan.steps.length) return void (await this.deps.store.swap('escalation', plan.key, plan.version + 1, undefined));
    const step = plan.sent + 1;
    const id = stageId(plan, step);
    const input = { ...plan.notification, recipient: plan.steps[step - 1]!.recipient };
    try {
      await createNotification(this.deps.ctx, this.deps.create, input, { id, escalation: { of: plan.key, step, tag: plan.tag } });
    } catch (err) {
      if (!(isAppError(err) && err.code === 'NOTIFICATION_EXISTS')) throw err;
    }
    const { attemptAfter: _claim, ...sent } = claimed;
    const last = step === plan.steps.length;
    // Pushover stops an alarm after its expire (at most 10800 s); the chain is kept that long after its last stage.
    const doneAt = last ? this.deps.ctx.clock.now() + (plan.notification.expire ?? this.deps.create.emergency?.expire ?? MAX_EXPIRE_SECONDS) * 1000 : undefined;
    const next: Escalation = { ...sent, sent: step, ...(doneAt === undefined ? {} : { doneAt }) };
    if (await this.deps.store.swap('escalation', plan.key, plan.version + 1, next)) this.deps.arm(dueAt(next));
    else await this.settleLate(plan.key, id);
  }

  /**
   * A stage created while the chain ended: its end may have missed it, so it is stopped on its own: cancelled if its
   * send has not gone out, its alarm cancelled if it rings.
   */
  private async settleLate(key: string, id: string): Promise<void> {
    const current = await this.deps.store.get('escalation', key);
    const end: ChainEnd | undefined = current?.kind === 'escalation' ? current.end : { kind: 'cancelled', at: isoNow(this.deps.ctx.clock) };
    let stage = end && (await this.deps.ctx.repository.get(id));
    if (!end || !stage) return;
    const pending = stage.delivery.status === 'pending';
    if (pending) {
      await this.settle(stage, end);
      stage = await this.settleSend(stage, end);
    }
    if (!isRinging(stage)) return;
    const { receipts } = this.deps;
    if (receipts) await withTimeout(this.deps.ctx.clock, receipts.cancelReceipt(stage.delivery.receipt!), this.deps.callTimeoutMs, 'Receipt cancel');
    // A send that landed was settled with it.
    if (!pending) await this.settle(stage, end);
  }

  /** An end the events did not bring (lost in a crash): the first read or gone, or a stage acknowledged. */
  private async endSeen(plan: Escalation): Promise<ChainEnd | undefined> {
    const at = isoNow(this.deps.ctx.clock);
    const first = await this.deps.ctx.repository.get(plan.key);
    if (!first || first.read || first.emergency?.cancelledAt !== undefined) return { kind: 'cancelled', at };
    for (const stage of await this.stages(plan)) {
      const e = stage.emergency;
      if (e?.acknowledgedAt !== undefined)
        return { kind: 'acknowledged', at: e.acknowledgedAt, by: e.acknowledgedBy ?? 'someone', byDevice: e.acknowledgedByDevice };
    }
    return undefined;
  }

  /** Records the end once (the instance whose swap wins), then stops every stage. */
  private async end(key: string, end: ChainEnd): Promise<void> {
    for (let i = 0; i < 5; i++) {
      const plan = await this.deps.store.get('escalation', key);
      if (plan?.kind !== 'escalation' || plan.end) return;
      const next: Escalation = { ...stripVersion(plan), end, attemptAfter: this.deps.ctx.clock.now() + CLAIM_MS };
      if (await this.deps.store.swap('escalation', key, plan.version, next)) return this.finish({ ...next, version: plan.version + 1 });
    }
  }

  /**
   * Every stage marked read and ended as the chain ended (so the emergency watch stops following them); a stage not
   * sent yet is ended `cancelled` and never sent, one being sent is waited for; then one cancel_by_tag for all that
   * rang. Taken up again after a crash, it cancels by tag again (harmless at Pushover).
   */
  private async finish(plan: StoredChain): Promise<void> {
    const { ctx, receipts } = this.deps;
    const read = await this.stages(plan);
    for (const stage of read) await this.settle(stage, plan.end!);
    // As they were before they were settled (a ringing one still ringing), with each pending send as it landed.
    const stages = await Promise.all(read.map(async (stage) => (stage.delivery.status === 'pending' ? this.settleSend(stage, plan.end!) : stage)));
    const rang = stages.filter((stage) => stage.emergency && stage.delivery.receipt !== undefined);
    const call = <T>(work: Promise<T>, what: string) => withTimeout(ctx.clock, work, this.deps.callTimeoutMs, what);
    // A provider without cancel by tag (a custom one) has each stage cancelled on its own.
    if (receipts?.cancelByTag && rang.length > 0) await call(receipts.cancelByTag(plan.tag), 'Cancel by tag');
    else if (receipts) for (const stage of rang.filter(isRinging)) await call(receipts.cancelReceipt(stage.delivery.receipt!), 'Receipt cancel');
    await this.deps.store.swap('escalation', plan.key, plan.version, undefined);
  }

  /** A stage pending when it was marked read: cancelled, or, when its send was under way, as it landed (its alarm then ended too). */
  private async settleSend(stage: NotificationRecord, end: ChainEnd): Promise<NotificationRecord> {
    const landed = await this.deps.create.delivery.settleEndedStage(stage.id);
    if (!landed) return stage;
    await this.settle(landed, end);
    return landed;
  }

  /** Marks a stage read, its alarm ended as the chain ended (acknowledged by whom, or cancelled), and tells its streams. */
  private async settle(stage: NotificationRecord, end: ChainEnd): Promise<void> {
    if (!isRinging(stage) && stage.read) return;
    const { ctx } = this.deps;
    const alarm =
      stage.emergency && isRinging(stage)
        ? end.kind === 'acknowledged'
          ? endAlarm(stage.emergency, { acknowledgedAt: end.at, acknowledgedBy: end.by, ...(end.byDevice ? { acknowledgedByDevice: end.byDevice } : {}) })
          : endAlarm(stage.emergency, { cancelledAt: end.at })
        : stage.emergency;
    const updated = await ctx.repository.update(stage.id, { ...(alarm ? { emergency: alarm } : {}), ...readSince(stage.readAt ?? end.at) });
    if (updated)
      ctx.events.publish({ type: end.kind === 'acknowledged' ? 'acknowledged' : 'alarm-ended', recipient: updated.recipient, notification: updated });
  }

  /** The chain's stored stages: the first and every step that may have gone out (a step claimed mid-send included). */
  private async stages(plan: Escalation): Promise<NotificationRecord[]> {
    const ids = [plan.key, ...plan.steps.map((_, i) => stageId(plan, i + 1))];
    const records = await Promise.all(ids.map((id) => this.deps.ctx.repository.get(id)));
    return records.filter((r): r is NotificationRecord => r !== undefined);
  }
}
