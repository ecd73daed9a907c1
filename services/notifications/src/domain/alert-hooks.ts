import { createHash } from 'node:crypto';
import { isAppError, isoNow, withTimeout } from '@homeops/common/core';
import { createNotification, type CreateDeps, type NewNotification } from './create-notification.use-case.js';
import type { NotificationContext } from './notification-context.js';
import { endAlarm, isRinging, type NotificationRecord } from './notification.js';
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
}

export interface AlertHooksDeps {
  create: CreateDeps;
  /** The provider's receipts API, to cancel a ringing emergency; undefined with delivery off. */
  receipts?: ReceiptApi | undefined;
  callTimeoutMs: number;
}

/** The tag an alert's emergencies carry at Pushover: its source and identity, hashed to a tag-safe word. */
export function alertTag(source: string, identity: string): string {
  return `alert-${createHash('sha256').update(`${source}\0${identity}`).digest('hex').slice(0, 16)}`;
}

function tagsOf(record: NotificationRecord): string[] {
  return (record.emergency?.tags ?? '').split(',').map((tag) => tag.trim());
}

/**
 * Turns alerts into notifications with their life cycle: a firing alert sends (an emergency carries the alert's tag),
 * the same alert firing while its emergency rings sends nothing, and its "resolved" cancels the ringing emergency at
 * Pushover and ends it (`alarm-ended`), optionally with a quiet note. Signals of one alert run one after another.
 */
export class AlertHooks {
  private readonly queues = new Map<string, Promise<unknown>>();
  /** Emergencies of an alert sent from here and not yet delivered: not ringing yet, but not to be sent again. */
  private readonly sending = new Map<string, string>();

  constructor(
    private readonly ctx: NotificationContext,
    private readonly deps: AlertHooksDeps,
  ) {}

  async receive(source: string, signals: readonly AlertSignal[], options: { resolvedNote: boolean }): Promise<HookOutcome> {
    const outcome: HookOutcome = { created: [], cancelled: [], alreadyRinging: 0 };
    for (const signal of signals) {
      // Only an emergency rings and can be ended: other alerts need no identity, and no turn.
      const rings = signal.notification.priority === 2 || signal.state === 'resolved';
      const tag = signal.identity && rings ? alertTag(source, signal.identity) : undefined;
      await this.inTurn(tag, async () => {
        if (signal.state === 'firing') await this.fire(signal, tag, outcome);
        else await this.resolve(signal, tag, options.resolvedNote, outcome);
      });
    }
    return outcome;
  }

  private async fire(signal: AlertSignal, tag: string | undefined, outcome: HookOutcome): Promise<void> {
    const input = signal.notification;
    if (tag && (this.sending.has(`${input.recipient}\u0000${tag}`) || (await this.ringing(input.recipient, tag)).length > 0)) {
      outcome.alreadyRinging++;
      return;
    }
    const tags = tag && input.priority === 2 ? [input.tags, tag].filter(Boolean).join(',') : input.tags;
    try {
      // Stored is answered; delivery follows behind requests that wait for theirs (Pushover takes two at a time).
      const given = { waitForDelivery: false, ...(signal.id ? { id: signal.id } : {}) };
      const record = await createNotification(this.ctx, this.deps.create, { ...input, ...(tags ? { tags } : {}) }, given);
      outcome.created.push(record);
      if (tag && input.priority === 2 && record.delivery.status === 'pending') this.followUntilSent(`${input.recipient}\u0000${tag}`, record.id);
    } catch (err) {
      if (!(signal.id && isAppError(err) && err.code === 'NOTIFICATION_EXISTS')) throw err;
    }
  }

  private async resolve(signal: AlertSignal, tag: string | undefined, note: boolean, outcome: HookOutcome): Promise<void> {
    const input = signal.notification;
    for (const record of tag ? await this.ringing(input.recipient, tag) : []) {
      const ended = await this.cancel(record);
      if (ended) outcome.cancelled.push(ended);
    }
    if (!note) return;
    const { retry: _r, expire: _e, callback: _c, tags: _t, ...plain } = input;
    const resolved = { ...plain, title: `Resolved: ${input.title}`.slice(0, 250), priority: -1 };
    outcome.created.push(await createNotification(this.ctx, this.deps.create, resolved));
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
    if (this.deps.receipts) await withTimeout(this.deps.receipts.cancelReceipt(record.delivery.receipt!), this.deps.callTimeoutMs, 'Receipt cancel');
    const updated = await this.ctx.repository.update(record.id, { emergency: endAlarm(record.emergency!, { cancelledAt: isoNow(this.ctx.clock) }) });
    if (updated) this.ctx.events.publish({ type: 'alarm-ended', recipient: updated.recipient, notification: updated });
    return updated;
  }

  private async ringing(recipient: string, tag: string): Promise<NotificationRecord[]> {
    return (await this.ctx.repository.ringing()).filter((r) => r.recipient === recipient && isRinging(r) && tagsOf(r).includes(tag));
  }

  /** Runs `work` after the earlier signals of the same alert (none: at once). */
  private inTurn(tag: string | undefined, work: () => Promise<void>): Promise<void> {
    if (!tag) return work();
    const previous = this.queues.get(tag);
    const run = previous ? previous.catch(() => {}).then(work) : work();
    this.queues.set(tag, run);
    const forget = () => {
      if (this.queues.get(tag) === run) this.queues.delete(tag);
    };
    run.then(forget, forget);
    return run;
  }
}
