import { setRepeatingTimer, SingleFlight, type Timer } from '@homeops/common/core';
import { removeAttachments } from './delete-notification.use-case.js';
import type { NotificationContext } from './notification-context.js';

/** Optional limits of the history; both unset means keep everything. */
export interface RetentionRule {
  maxAgeDays?: number | undefined;
  maxPerRecipient?: number | undefined;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Prunes the history in the background on an interval, with the attachments of the pruned records. */
export class RetentionJob {
  private timer: Timer | undefined;
  private readonly running = new SingleFlight<number>();

  constructor(
    private readonly ctx: NotificationContext,
    private readonly rule: RetentionRule,
    private readonly intervalMs: number,
  ) {}

  get enabled(): boolean {
    return this.rule.maxAgeDays !== undefined || this.rule.maxPerRecipient !== undefined;
  }

  /** Prunes once now, then every interval; does nothing when no limit is set. */
  start(): void {
    if (!this.enabled || this.timer) return;
    const tick = () => void this.runOnce();
    tick();
    this.timer = setRepeatingTimer(this.ctx.clock, tick, this.intervalMs);
  }

  /** Removes what is beyond the limits; resolves how many records were removed. Failures are logged, not thrown. */
  runOnce(): Promise<number> {
    return this.running.run(() => this.prune());
  }

  async stop(): Promise<void> {
    this.timer?.cancel();
    this.timer = undefined;
    await this.running.current;
  }

  private async prune(): Promise<number> {
    const olderThan = this.rule.maxAgeDays !== undefined ? new Date(this.ctx.clock.now() - this.rule.maxAgeDays * DAY_MS) : undefined;
    try {
      const removed = await this.ctx.repository.prune({
        ...(olderThan ? { olderThan } : {}),
        ...(this.rule.maxPerRecipient !== undefined ? { maxPerRecipient: this.rule.maxPerRecipient } : {}),
      });
      await removeAttachments(this.ctx, removed);
      for (const record of removed) this.ctx.events.publish({ type: 'deleted', recipient: record.recipient, id: record.id });
      if (removed.length > 0) this.ctx.logger.info({ removed: removed.length }, 'retention pruned old notifications');
      return removed.length;
    } catch (err) {
      this.ctx.logger.error({ err }, 'retention pruning failed; will try again at the next interval');
      return 0;
    }
  }
}
