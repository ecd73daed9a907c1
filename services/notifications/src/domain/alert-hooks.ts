import { AppError, isAppError, isoNow, withTimeout } from '@homeops/common/core';
import { alertKey, ringingOf, type RingingOfAlert } from './alert-identity.js';
import { createNotification, type CreateDeps, type NewNotification } from './create-notification.use-case.js';
import type { NotificationContext } from './notification-context.js';
import { endAlarm, type AlertIdentity, type NotificationRecord } from './notification.js';
import type { ReceiptApi } from './push-provider.js';

/** One alert as a monitoring tool reported it, already mapped by a template. */
export interface AlertSignal {
  /** The alert's identity at its source (Alertmanager fingerprint, Grafana rule and labels, Kuma monitor). */
  identity?: string | undefined;
  state: 'firing' | 'resolved';
  /** What to send while it fires (and the title of a resolved note). */
  notification: NewNotification;
  /** A fixed id for the firing's notification (a planned one's, the same on every try): stored already means sent. */
  id?: string | undefined;
}

/** One alert as a template read it from a webhook body: its state, identity, and the create body it maps to. */
export interface RenderedAlert {
  state: 'firing' | 'resolved';
  identity: string | undefined;
  /** The create body (POST /notifications' shape), validated by the caller as that route validates it. */
  body: Record<string, unknown>;
}

/** Overrides from the query string: who it goes to, its priority and sound. */
export interface HookQuery {
  recipient?: string | undefined;
  priority?: number | undefined;
  sound?: string | undefined;
}

/** The webhook templates: the built-in ones and the user's, mapping a tool's body to alerts (a 400 when it cannot). */
export interface HookTemplates {
  names(): string[];
  has(name: string): boolean;
  /** Whether the template asks for a quiet note when an alert resolves. */
  sendsResolvedNote(name: string): boolean;
  render(name: string, body: unknown, query: HookQuery): RenderedAlert[];
}

/** What one webhook call did. */
export interface HookOutcome {
  /** Notifications sent for firing alerts, and resolved notes. */
  created: NotificationRecord[];
  /** Ringing emergencies cancelled because their alert resolved. */
  cancelled: NotificationRecord[];
  /** Firing alerts whose emergency still rings: not sent again. */
  alreadyRinging: number;
  /** Resolves of alerts another sender fired: their emergencies ring on (only that sender or an admin ends them). */
  notYours: number;
}

export interface AlertHooksDeps {
  create: CreateDeps;
  /** The provider's receipts API, to cancel a ringing emergency; undefined with delivery off. */
  receipts?: ReceiptApi | undefined;
  callTimeoutMs: number;
  /** Starts an escalation chain (the planner's): an emergency whose input names `escalate` goes through it. */
  escalate?: StartEscalation | undefined;
}

/** Creates an emergency that goes on to its `escalate` steps while nobody acknowledges it. */
export type StartEscalation = (input: NewNotification, given: { waitForDelivery?: boolean; alert?: AlertIdentity; id?: string }) => Promise<NotificationRecord>;

/** Who sends alerts: what a resolve is checked against. */
export interface AlertSender {
  /** Stable and never a secret: `token:<token id>`, `api-key`, `open` or `heartbeat`. */
  id: string;
  /** May end any sender's alert (an admin). */
  resolvesAny: boolean;
}

/**
 * Turns alerts into notifications with their life cycle: a firing alert sends (an emergency records the alert and its
 * sender in `alert`, a field only this sets), the same alert from the same sender firing while its emergency rings
 * sends nothing, and its "resolved" from that sender (or an admin) cancels the ringing emergency at Pushover and ends it
 * (`alarm-ended`), optionally with a quiet note. Signals of one alert run one after another.
 */
export class AlertHooks {
  private readonly queues = new Map<string, Promise<unknown>>();
  /** Emergencies of an alert sent from here and not yet delivered: not ringing yet, but not to be sent again. */
  private readonly sending = new Map<string, string>();

  constructor(
    private readonly ctx: NotificationContext,
    private readonly deps: AlertHooksDeps,
  ) {}

  /** Throws ALERT_FIRED_BY_ANOTHER when every signal is a resolve of emergencies only other senders rang (nothing done). */
  async receive(source: string, signals: readonly AlertSignal[], options: { resolvedNote: boolean; sender: AlertSender }): Promise<HookOutcome> {
    const outcome: HookOutcome = { created: [], cancelled: [], alreadyRinging: 0, notYours: 0 };
    const { sender } = options;
    await this.assertSomeAllowed(source, signals, sender);
    for (const signal of signals) {
      // Only an emergency rings and can be ended: other alerts need no identity, and no turn.
      const rings = signal.notification.priority === 2 || signal.state === 'resolved';
      const alert = signal.identity && rings ? { source, key: alertKey(source, signal.identity), firedBy: sender.id } : undefined;
      await this.inTurn(alert && `${alert.source}\u0000${alert.key}`, async () => {
        if (signal.state === 'firing') await this.fire(signal, alert, outcome);
        else await this.resolve(signal, alert, sender, options.resolvedNote, outcome);
      });
    }
    return outcome;
  }

  private async fire(signal: AlertSignal, alert: AlertIdentity | undefined, outcome: HookOutcome): Promise<void> {
    const input = signal.notification;
    const sendingKey = alert && sendingKeyOf(input.recipient, alert);
    if (alert && (this.sending.has(sendingKey!) || (await this.ringing(input.recipient, alert)).mine.length > 0)) {
      outcome.alreadyRinging++;
      return;
    }
    try {
      // Stored is answered; delivery follows behind requests that wait for theirs (Pushover takes two at a time).
      const given = { waitForDelivery: false, ...(signal.id ? { id: signal.id } : {}), ...(alert ? { alert } : {}) };
      const record =
        input.escalate && this.deps.escalate ? await this.deps.escalate(input, given) : await createNotification(this.ctx, this.deps.create, input, given);
      outcome.created.push(record);
      if (alert && input.priority === 2 && record.delivery.status === 'pending') this.followUntilSent(sendingKey!, record.id);
    } catch (err) {
      if (!(signal.id && isAppError(err) && err.code === 'NOTIFICATION_EXISTS')) throw err;
    }
  }

  private async resolve(signal: AlertSignal, alert: AlertIdentity | undefined, sender: AlertSender, note: boolean, outcome: HookOutcome): Promise<void> {
    const input = signal.notification;
    const found = alert ? await this.ringing(input.recipient, alert) : { mine: [], others: [] };
    const ending = sender.resolvesAny ? [...found.mine, ...found.others] : found.mine;
    if (ending.length === 0 && found.others.length > 0) {
      outcome.notYours++;
      return;
    }
    for (const record of ending) {
      const ended = await this.cancel(record);
      if (ended) outcome.cancelled.push(ended);
    }
    if (!note) return;
    const { retry: _r, expire: _e, callback: _c, tags: _t, escalate: _s, ...plain } = input;
    const resolved = { ...plain, title: `Resolved: ${input.title}`.slice(0, 250), priority: -1 };
    outcome.created.push(await createNotification(this.ctx, this.deps.create, resolved));
  }

  /**
   * A call that would do nothing but resolve alerts other senders fired is refused as a whole, so the caller learns
   * why the alarm rings on; a call with anything else in it runs, and counts those resolves in `notYours`.
   */
  private async assertSomeAllowed(source: string, signals: readonly AlertSignal[], sender: AlertSender): Promise<void> {
    if (sender.resolvesAny || signals.length === 0 || signals.some((s) => s.state !== 'resolved' || !s.identity)) return;
    const ringing = await this.ctx.repository.ringing();
    for (const signal of signals) {
      const found = ringingOf(ringing, signal.notification.recipient, { source, key: alertKey(source, signal.identity!), firedBy: sender.id });
      if (found.mine.length > 0 || found.others.length === 0) return;
    }
    throw new AppError('ALERT_FIRED_BY_ANOTHER', `The ringing emergency of this alert was fired by another sender; it keeps ringing`);
  }

  /** Remembers an emergency being delivered until its delivery is recorded, whatever its outcome. */
  private followUntilSent(key: string, id: string): void {
    this.sending.set(key, id);
    const unsubscribe = this.ctx.events.subscribeAll((event) => {
      if (event.type !== 'delivery' || event.notification.id !== id || event.notification.delivery.status === 'pending') return;
      unsubscribe();
      if (this.sending.get(key) === id) this.sending.delete(key);
    });
  }

  /** Cancels the alarm at Pushover (not a receipt check: Pushover's 5 s rule is not touched) and records the end. */
  private async cancel(record: NotificationRecord): Promise<NotificationRecord | undefined> {
    if (this.deps.receipts)
      await withTimeout(this.ctx.clock, this.deps.receipts.cancelReceipt(record.delivery.receipt!), this.deps.callTimeoutMs, 'Receipt cancel');
    const updated = await this.ctx.repository.update(record.id, { emergency: endAlarm(record.emergency!, { cancelledAt: isoNow(this.ctx.clock) }) });
    if (updated) this.ctx.events.publish({ type: 'alarm-ended', recipient: updated.recipient, notification: updated });
    return updated;
  }

  /** The ringing emergencies of this alert for this recipient: the ones its sender fired, and other senders'. */
  private async ringing(recipient: string, alert: AlertIdentity): Promise<RingingOfAlert> {
    return ringingOf(await this.ctx.repository.ringing(), recipient, alert);
  }

  /** Runs `work` after the earlier signals of the same alert (none: at once). */
  private inTurn(turn: string | undefined, work: () => Promise<void>): Promise<void> {
    if (!turn) return work();
    const previous = this.queues.get(turn);
    const run = previous ? previous.catch(() => {}).then(work) : work();
    this.queues.set(turn, run);
    const forget = () => {
      if (this.queues.get(turn) === run) this.queues.delete(turn);
    };
    run.then(forget, forget);
    return run;
  }
}

/** An emergency of this alert from this sender being delivered: keyed by recipient, alert and sender. */
function sendingKeyOf(recipient: string, alert: AlertIdentity): string {
  return `${recipient}\u0000${alert.source}\u0000${alert.key}\u0000${alert.firedBy}`;
}
