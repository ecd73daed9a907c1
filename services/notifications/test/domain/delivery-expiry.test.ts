import { ManualClock } from '@homeops/common';
import { describe, expect, it } from 'vitest';
import { eventually } from '@homeops/test-kit';
import { DeliveryWorker } from '../../src/domain/delivery.worker.js';
import { NotificationEvents } from '../../src/domain/notification-events.js';
import type { NotificationRecord } from '../../src/domain/notification.js';
import { DeliveryError } from '../../src/domain/push-provider.js';
import { FakePushProvider } from '../fakes/fake-push.provider.js';
import { InMemoryAttachmentStore } from '../fakes/in-memory-attachment.store.js';
import { InMemoryNotificationRepository } from '../fakes/in-memory-notification.repository.js';
import { silentLogger } from '../support/test-app.js';

const NOW = Date.parse('2026-11-24T12:00:00.000Z');

function pending(id: string, ageSeconds: number, ttl?: number): NotificationRecord {
  return {
    id,
    recipient: 'ops',
    title: 't',
    message: 'm',
    priority: 1,
    read: false,
    readAt: null,
    createdAt: new Date(NOW - ageSeconds * 1000).toISOString(),
    ...(ttl === undefined ? {} : { ttl }),
    delivery: { status: 'pending', attempts: 2, nextAttemptAt: new Date(NOW).toISOString() },
  };
}

describe('stale deliveries', () => {
  it('expires what waited longer than the maximum age or its own ttl, sends the rest, after a downtime', async () => {
    const repository = new InMemoryNotificationRepository();
    await repository.open();
    for (const record of [pending('old', 25 * 3600), pending('short-ttl', 120, 60), pending('fresh', 60, 3600), pending('fresh-no-ttl', 23 * 3600)]) {
      await repository.insert(record);
    }
    const provider = new FakePushProvider();
    const events = new NotificationEvents();
    const seen: string[] = [];
    events.subscribe('ops', (e) => e.type === 'delivery' && seen.push(`${e.notification.id}:${e.notification.delivery.status}`));
    const clock = new ManualClock(NOW);
    const ctx = { repository, attachments: new InMemoryAttachmentStore(), events, clock, logger: silentLogger };
    const worker = new DeliveryWorker(ctx, provider, {
      minDelayMs: 10,
      maxDelayMs: 100,
      maxAttempts: 5,
      concurrency: 2,
      attemptTimeoutMs: 500,
      maxAgeMs: 24 * 3600_000,
    });

    await worker.resume();
    clock.advance(0);
    await eventually(() => seen.length === 4);
    await worker.stop();

    expect((await repository.get('old'))?.delivery).toMatchObject({ status: 'expired', attempts: 2, error: expect.stringContaining('past the 86400 s') });
    expect((await repository.get('short-ttl'))?.delivery).toMatchObject({ status: 'expired', error: expect.stringContaining('past the 60 s') });
    expect((await repository.get('fresh'))?.delivery.status).toBe('sent');
    expect((await repository.get('fresh-no-ttl'))?.delivery.status).toBe('sent');
    expect((await repository.get('old'))?.delivery).not.toHaveProperty('nextAttemptAt');
    expect(provider.sent.map((m) => m.createdAt).sort()).toEqual([pending('fresh-no-ttl', 23 * 3600).createdAt, pending('fresh', 60).createdAt]);
  });

  it('keeps a delivery refused for a spent quota pending until the reset, instead of failing it', async () => {
    const repository = new InMemoryNotificationRepository();
    await repository.open();
    await repository.insert(pending('quota', 60));
    const reset = new Date(NOW + 6 * 3600_000).toISOString();
    const provider = new FakePushProvider().willAnswer(
      new DeliveryError('Pushover message quota exhausted (HTTP 429)', false, { status: 429, quotaExhausted: true, waitUntil: reset }),
    );
    const clock = new ManualClock(NOW);
    const ctx = { repository, attachments: new InMemoryAttachmentStore(), events: new NotificationEvents(), clock, logger: silentLogger };
    const worker = new DeliveryWorker(ctx, provider, {
      minDelayMs: 10,
      maxDelayMs: 100,
      maxAttempts: 5,
      concurrency: 2,
      attemptTimeoutMs: 500,
      maxAgeMs: 24 * 3600_000,
    });

    await worker.resume();
    clock.advance(0);
    await eventually(async () => (await repository.get('quota'))?.delivery.attempts === 3);
    await worker.stop();

    expect((await repository.get('quota'))?.delivery).toMatchObject({
      status: 'pending',
      nextAttemptAt: reset,
      error: expect.stringContaining('waiting for the reset'),
    });
    expect(provider.sent).toHaveLength(1);
  });

  describe('with a quota reset weeks away', () => {
    /** Settles what the last timers started (the attempt's reads and writes) before the test looks. */
    const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

    async function quotaWait(resetInDays: number, maxAgeMs: number) {
      const clock = new ManualClock(NOW);
      const repository = new InMemoryNotificationRepository();
      await repository.open();
      await repository.insert({ ...pending('quota', 0), delivery: { status: 'pending', attempts: 0 } });
      const reset = new Date(NOW + resetInDays * 86_400_000).toISOString();
      const provider = new FakePushProvider().willAnswer(
        new DeliveryError('Pushover message quota exhausted (HTTP 429)', false, { status: 429, quotaExhausted: true, waitUntil: reset }),
      );
      const ctx = { repository, attachments: new InMemoryAttachmentStore(), events: new NotificationEvents(), clock, logger: silentLogger };
      const worker = new DeliveryWorker(ctx, provider, { minDelayMs: 10, maxDelayMs: 100, maxAttempts: 5, concurrency: 2, attemptTimeoutMs: 500, maxAgeMs });
      await worker.resume();
      await advance(clock, 10);
      return { repository, provider, worker, clock };
    }

    /** Moves the clock a day at a time, letting each fired attempt finish, as Node's timers would. */
    async function advance(clock: ManualClock, ms: number): Promise<void> {
      for (let left = ms; left > 0; left -= 86_400_000) {
        clock.advance(Math.min(left, 86_400_000));
        await settle();
      }
    }

    it('waits past what one timer holds (40 days) without sending again, then sends once the quota is reset', async () => {
      const { repository, provider, worker, clock } = await quotaWait(40, 60 * 86_400_000);
      expect(provider.sent).toHaveLength(1);

      await advance(clock, 39 * 86_400_000);
      expect(provider.sent).toHaveLength(1);
      expect((await repository.get('quota'))?.delivery.status).toBe('pending');

      await advance(clock, 86_400_000);
      await eventually(() => provider.sent.length === 2);
      await worker.stop();
      expect(provider.sent).toHaveLength(2);
      expect((await repository.get('quota'))?.delivery).toMatchObject({ status: 'sent', attempts: 2 });
    });

    it('expires a delivery at its maximum age while it waits for a later quota reset', async () => {
      const { repository, provider, worker, clock } = await quotaWait(6 / 24, 3_600_000);

      await advance(clock, 3_600_000 + 10);
      await eventually(async () => (await repository.get('quota'))?.delivery.status === 'expired');
      const delivery = (await repository.get('quota'))?.delivery;
      await worker.stop();

      expect(delivery).toMatchObject({ status: 'expired', attempts: 1 });
      expect(provider.sent).toHaveLength(1);
    });
  });
});
