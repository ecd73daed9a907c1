import { ManualClock } from '@homeops/common';
import { drainEventLoop, eventually } from '@homeops/test-kit';
import { describe, expect, it } from 'vitest';
import { DeliveryWorker } from '../../src/domain/delivery.worker.js';
import type { FallbackChannels, FallbackTarget, FallbackTargetStatus } from '../../src/domain/fallback.js';
import { NotificationEvents } from '../../src/domain/notification-events.js';
import type { NotificationRecord } from '../../src/domain/notification.js';
import { DeliveryError, type PushMessage, type PushReceipt } from '../../src/domain/push-provider.js';
import { FakePushProvider } from '../fakes/fake-push.provider.js';
import { InMemoryAttachmentStore } from '../fakes/in-memory-attachment.store.js';
import { InMemoryNotificationRepository } from '../fakes/in-memory-notification.repository.js';
import { silentLogger } from '../support/test-app.js';

/** alice's one ntfy target, recording every message it is given; `failures` sends fail first. */
class RecordingChannels implements FallbackChannels {
  readonly sent: Array<{ alias: string; target: string; message: PushMessage }> = [];
  constructor(private failures = 0) {}
  targetsOf(alias: string): FallbackTarget[] {
    return alias === 'alice' ? [{ channel: 'ntfy', name: 'ntfy.lan/alice' }] : [];
  }
  async send(alias: string, target: FallbackTarget, message: PushMessage): Promise<void> {
    if (this.failures > 0) {
      this.failures -= 1;
      throw new Error('ntfy to ntfy.lan/alice: HTTP 503');
    }
    this.sent.push({ alias, target: target.name, message });
  }
  status(): FallbackTargetStatus[] {
    return [];
  }
}

const AFTER_MS = 60_000;

function setup(channels: RecordingChannels) {
  const clock = new ManualClock(Date.parse('2026-11-28T12:00:00.000Z'));
  const repository = new InMemoryNotificationRepository();
  let answer!: (receipt: PushReceipt | PromiseLike<PushReceipt>) => void;
  const provider = new FakePushProvider().willAnswer(new Promise<PushReceipt>((resolve) => (answer = resolve)));
  const ctx = { repository, attachments: new InMemoryAttachmentStore(), events: new NotificationEvents(), clock, logger: silentLogger };
  const worker = new DeliveryWorker(
    ctx,
    provider,
    { minDelayMs: 5_000, maxDelayMs: 60_000, maxAttempts: 5, concurrency: 2, attemptTimeoutMs: 10 * 60_000 },
    { channels, settings: { afterMs: AFTER_MS, timeoutMs: 10_000, minDelayMs: 5_000, maxDelayMs: 60_000, maxAttempts: 5 } },
  );
  const record: NotificationRecord = {
    id: 'n-1',
    recipient: 'alice',
    title: 'Smoke',
    message: 'Kitchen smoke alarm',
    priority: 1,
    read: false,
    readAt: null,
    createdAt: new Date(clock.now()).toISOString(),
    delivery: { status: 'pending', attempts: 0, to: 'alice' },
  };
  return { clock, repository, provider, worker, record, answer: (r: PushReceipt | PromiseLike<PushReceipt>) => answer(r) };
}

describe('the fallback after FALLBACK_AFTER_SECONDS', () => {
  it('goes out once when Pushover has not answered in time, and not again when Pushover answers later', async () => {
    const channels = new RecordingChannels();
    const t = setup(channels);
    await t.repository.insert(t.record);
    const first = t.worker.deliverNow(t.record);
    await eventually(() => t.provider.sent.length === 1, 'the Pushover attempt under way');

    t.clock.advance(AFTER_MS - 1);
    await drainEventLoop();
    expect(channels.sent).toEqual([]);

    t.clock.advance(1);
    await eventually(() => channels.sent.length === 1, 'the fallback sent');
    expect(channels.sent[0]).toMatchObject({ alias: 'alice', target: 'ntfy.lan/alice', message: { title: 'Smoke', priority: 1 } });
    await eventually(async () => (await t.repository.get('n-1'))?.delivery.channels?.[1]?.status === 'sent');
    expect((await t.repository.get('n-1'))?.delivery.channels).toEqual([
      { channel: 'pushover', status: 'pending', attempts: 1, at: '2026-11-28T12:00:00.000Z' },
      { channel: 'ntfy', target: 'ntfy.lan/alice', status: 'sent', attempts: 1, at: '2026-11-28T12:01:00.000Z' },
    ]);

    // Pushover answers at last: its state is recorded beside the fallback's, which is not sent again.
    t.answer({ request: 'r-late' });
    await first;
    t.clock.advance(10 * AFTER_MS);
    await drainEventLoop();
    expect(channels.sent).toHaveLength(1);
    expect((await t.repository.get('n-1'))?.delivery).toEqual({
      status: 'sent',
      attempts: 1,
      request: 'r-late',
      lastAttemptAt: '2026-11-28T12:00:00.000Z',
      to: 'alice',
      channels: [
        { channel: 'pushover', status: 'sent', attempts: 1, at: '2026-11-28T12:00:00.000Z' },
        { channel: 'ntfy', target: 'ntfy.lan/alice', status: 'sent', attempts: 1, at: '2026-11-28T12:01:00.000Z' },
      ],
    });
    await t.worker.stop();
  });

  it('retries a failing target with backoff, from the minimum delay up, and sends it once', async () => {
    const channels = new RecordingChannels(2);
    const t = setup(channels);
    await t.repository.insert(t.record);
    void t.worker.deliverNow(t.record);
    await eventually(() => t.provider.sent.length === 1);
    t.clock.advance(AFTER_MS);
    const ntfyState = async () => (await t.repository.get('n-1'))?.delivery.channels?.[1];
    await eventually(async () => (await ntfyState())?.attempts === 1 && (await ntfyState())?.error !== undefined, 'the first failure recorded');
    expect(await ntfyState()).toMatchObject({ status: 'pending', attempts: 1, error: 'ntfy to ntfy.lan/alice: HTTP 503' });

    t.clock.advance(4_999);
    await drainEventLoop();
    expect((await ntfyState())?.attempts).toBe(1);
    t.clock.advance(1 + 500); // the first retry: 5 s, up to 10 % later
    await eventually(async () => (await ntfyState())?.attempts === 2 && (await ntfyState())?.error !== undefined, 'the second failure');
    t.clock.advance(11_000); // the second: 10 s, up to 10 % later
    await eventually(async () => (await ntfyState())?.status === 'sent', 'sent at the third attempt');
    expect(await ntfyState()).toEqual({ channel: 'ntfy', target: 'ntfy.lan/alice', status: 'sent', attempts: 3, at: expect.any(String) });
    t.clock.advance(10 * AFTER_MS);
    await drainEventLoop();
    expect(channels.sent).toHaveLength(1);
    t.answer({ request: 'r' });
    await t.worker.stop();
  });

  it('sends an emergency whose Pushover answer never came (unknown, not resent there) to the fallback at once', async () => {
    const channels = new RecordingChannels();
    const t = setup(channels);
    const emergency: NotificationRecord = { ...t.record, priority: 2, emergency: { retry: 60, expire: 600 } };
    await t.repository.insert(emergency);
    t.answer(Promise.reject(new DeliveryError('Pushover did not answer within 10000 ms', true, { maybeDelivered: true })));
    await t.worker.deliverNow(emergency);
    await eventually(() => channels.sent.length === 1, 'the fallback sent');
    const stored = await eventually(async () => {
      const r = await t.repository.get('n-1');
      return r?.delivery.channels?.[1]?.status === 'sent' && r;
    });
    expect(stored.delivery).toMatchObject({ status: 'unknown', attempts: 1 });
    expect(stored.delivery.channels?.map((c) => [c.channel, c.status])).toEqual([
      ['pushover', 'unknown'],
      ['ntfy', 'sent'],
    ]);
    expect(t.provider.sent).toHaveLength(1);
    await t.worker.stop();
  });
});
