import type { EscalationStep, NewNotification } from '../create-notification.use-case.js';

/** What a plan sends: a create request without an attachment (plans are kept as small JSON). */
export type PlannedNotification = Omit<NewNotification, 'attachment'>;

/** A notification to send later, by the client's key: listed, changed and cancelled until it goes out. */
export interface ScheduledSend {
  kind: 'send';
  key: string;
  /** When it goes out (ms since the epoch). */
  sendAt: number;
  notification: PlannedNotification;
  createdAt: number;
  /** Claimed by an instance sending it: tried again from this time only if that instance never finished. */
  attemptAfter?: number | undefined;
}

/**
 * A dead man's switch: pinged every `intervalMs`; when a ping is `graceMs` late it sends its notification once per
 * episode, and the next ping ends the episode (cancels the alarm, and sends "recovered" when asked).
 */
export interface Heartbeat {
  kind: 'heartbeat';
  key: string;
  intervalMs: number;
  graceMs: number;
  notification: PlannedNotification;
  recoveredNote: boolean;
  lastPingAt: number;
  /** up: pinged in time; down: missed since `missedAt` (the episode), its notification sent or being sent. */
  status: { state: 'up' } | { state: 'down'; missedAt: number; sent: boolean; attemptAfter?: number | undefined };
  createdAt: number;
}

/** How an escalation chain ended: acknowledged by someone on one stage, or cancelled (read, deleted, resolved). */
export type ChainEnd = { kind: 'acknowledged'; at: string; by: string; byDevice?: string | undefined } | { kind: 'cancelled'; at: string };

/**
 * An emergency that goes on to `steps[i].recipient` at `startedAt + steps[i].afterSeconds` while nobody acknowledged
 * it; keyed by the first notification's id. Kept until the chain ends, so its end can still stop every stage.
 */
export interface Escalation {
  kind: 'escalation';
  key: string;
  /** What every stage sends (the first's content; each stage's recipient is its step's). */
  notification: PlannedNotification;
  steps: EscalationStep[];
  startedAt: number;
  /** The Pushover tag every stage carries: one cancel_by_tag stops them all. */
  tag: string;
  /** Steps sent so far (stage n is steps[n - 1]). */
  sent: number;
  /** Once every step went out: when the last alarm has stopped at Pushover (its expire), and the plan can go. */
  doneAt?: number | undefined;
  /** Set once the chain ended: what is left is stopping the stages, then the plan goes. */
  end?: ChainEnd | undefined;
  createdAt: number;
  /** Claimed by an instance sending a step or ending the chain: tried again from this time if it never finished. */
  attemptAfter?: number | undefined;
}

export type Plan = ScheduledSend | Heartbeat | Escalation;

/** A plan as stored: with the version every change moves on, which is what instances claim (compare and set). */
export type StoredPlan = Plan & { version: number };

/** When a plan has something to do next (Infinity: nothing until it is pinged or changed). */
export function dueAt(plan: Plan): number {
  if (plan.kind === 'send') return plan.attemptAfter ?? plan.sendAt;
  if (plan.kind === 'escalation') {
    if (plan.attemptAfter !== undefined) return plan.attemptAfter;
    if (plan.end) return 0;
    const step = plan.steps[plan.sent];
    return step ? plan.startedAt + step.afterSeconds * 1000 : (plan.doneAt ?? Infinity);
  }
  const { status } = plan;
  if (status.state === 'up') return plan.lastPingAt + plan.intervalMs + plan.graceMs;
  return status.sent ? Infinity : (status.attemptAfter ?? status.missedAt);
}

/** Where plans are kept: durable once a call resolves, shared by the instances of one history. */
export interface PlanStore {
  open(): Promise<void>;
  close(): Promise<void>;
  list(): Promise<StoredPlan[]>;
  get(kind: Plan['kind'], key: string): Promise<StoredPlan | undefined>;
  /** How many plans are kept, of both kinds: what the limit is checked against without reading them all. */
  count(): Promise<number>;
  /** How many plans of both kinds send to this recipient: its share of the limit. */
  countFor(recipient: string): Promise<number>;
  /** Stores the plan as a new version of it; resolves the stored one. */
  put(plan: Plan): Promise<StoredPlan>;
  /**
   * Replaces version `version` of the plan with `next` (or removes it when `next` is undefined); version 0 stores
   * `next` only where there is no plan yet. False when another change came first.
   */
  swap(kind: Plan['kind'], key: string, version: number, next: Plan | undefined): Promise<boolean>;
  remove(kind: Plan['kind'], key: string): Promise<boolean>;
}
