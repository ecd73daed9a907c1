import { ManualClock, systemClock, type Clock } from '@homeops/common';
import { drainEventLoop, eventually } from '@homeops/test-kit';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { DeliveryWorker } from '../../src/domain/delivery.worker.js';
import { NotificationEvents } from '../../src/domain/notification-events.js';
import type { Delivery, NotificationRecord } from '../../src/domain/notification.js';
import type { PushReceipt } from '../../src/domain/push-provider.js';
import { FakePushProvider, permanent, quotaSpent, retryable } from '../fakes/fake-push.provider.js';
import { InMemoryAttachmentStore } from '../fakes/in-memory-attachment.store.js';
import { InMemoryNotificationRepository } from '../fakes/in-memory-notification.repository.js';
import { buildTestApp, silentLogger } from '../support/test-app.js';

const body = { recipient: 'ops', title: 'Disk', message: 'Disk almost full' };
const settings = { minDelayMs: 30, maxDelayMs: 200, maxAttempts: 3, concurrency: 2, attemptTimeoutMs: 500 };

function deferred() {
  let resolve!: (r: PushReceipt) => void;
  const promise = new Promise<PushReceipt>((r) => (resolve = r));
  return { promise, resolve };
}

function pendingRecord(id: string, delivery: Partial<Delivery> = {}): NotificationRecord {
  return {
    id,
    recipient: 'ops',
    title: 't',
    message: 'm',
    priority: 0,
    read: false,
    readAt: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    // Lean deliveries of any status, as a store may hold them.
    delivery: { status: 'pending', attempts: 0, ...delivery } as Delivery,
  };
}

function worker(repository: InMemoryNotificationRepository, provider: FakePushProvider, clock: Clock = systemClock) {
  const ctx = { repository, attachments: new InMemoryAttachmentStore(), events: new NotificationEvents(), clock, logger: silentLogger };
  return new DeliveryWorker(ctx, provider, settings);
}

describe('delivery worker', () => {
  it('answers 201 with pending after a retryable failure, then retries with backoff until sent', async () => {
    const provider = new FakePushProvider().willAnswer(retryable(), retryable(), { request: 'r-3' });
    const clock = new ManualClock();
    const t = await buildTestApp({ provider, clock, config: { DELIVERY_RETRY_MIN_MS: 30, DELIVERY_MAX_ATTEMPTS: 5 } });
    const res = await request(t.app).post('/notifications').send(body);
    expect(res.status).toBe(201);
    expect(res.body.delivery).toMatchObject({ status: 'pending', attempts: 1, error: 'Pushover answered 503', nextAttemptAt: expect.any(String) });

    /** Waits for the retry timer after `attempts`, checks it is not early, moves the clock to it; resolves its delay. */
    const nextRetry = async (attempts: number) => {
      const delivery = await eventually(async () => {
        const stored = (await t.repository.get(res.body.id))?.delivery;
        return stored?.attempts === attempts && stored.status === 'pending' && t.delivery.scheduled === 1 && stored;
      }, `the retry timer after attempt ${attempts}`);
      const delayMs = Date.parse(delivery.nextAttemptAt!) - clock.now();
      clock.advance(delayMs - 1);
      await drainEventLoop();
      expect(provider.sent).toHaveLength(attempts);
      clock.advance(1);
      await eventually(() => provider.sent.length === attempts + 1, `attempt ${attempts + 1}`);
      return delayMs;
    };
    // The backoff doubles from DELIVERY_RETRY_MIN_MS, with up to 10 % jitter.
    const first = await nextRetry(1);
    expect(first).toBeGreaterThanOrEqual(30);
    expect(first).toBeLessThanOrEqual(33);
    const second = await nextRetry(2);
    expect(second).toBeGreaterThanOrEqual(60);
    expect(second).toBeLessThanOrEqual(66);
    await eventually(async () => (await t.repository.get(res.body.id))?.delivery.status === 'sent');
    expect((await t.repository.get(res.body.id))?.delivery).toEqual({ status: 'sent', attempts: 3, request: 'r-3', lastAttemptAt: expect.any(String) });
    expect(provider.sent).toHaveLength(3);
  });

  it('marks a permanent failure failed with the provider errors and never retries it', async () => {
    const provider = new FakePushProvider().willAnswer(permanent(['application token is invalid']));
    const clock = new ManualClock();
    const t = await buildTestApp({ provider, clock });
    const res = await request(t.app).post('/notifications').send(body);
    expect(res.body.delivery).toMatchObject({ status: 'failed', attempts: 1, error: 'Pushover rejected the message: application token is invalid' });
    expect(t.delivery.scheduled).toBe(0);
    // Far past any backoff; stop() waits for an attempt a timer would have started.
    clock.advance(60_000);
    await t.delivery.stop();
    expect(provider.sent).toHaveLength(1);
  });

  it('marks a 429 failed with a quota message', async () => {
    const t = await buildTestApp({ provider: new FakePushProvider().willAnswer(quotaSpent()) });
    const res = await request(t.app).post('/notifications').send(body);
    expect(res.body.delivery).toMatchObject({ status: 'failed', error: expect.stringMatching(/monthly message quota is used up/) });
  });

  it('gives up after the maximum attempts', async () => {
    const provider = new FakePushProvider().alwaysAnswer(retryable());
    const t = await buildTestApp({ provider, config: { DELIVERY_RETRY_MIN_MS: 10, DELIVERY_MAX_ATTEMPTS: 3 } });
    const id = (await request(t.app).post('/notifications').send(body)).body.id;
    await eventually(async () => (await t.repository.get(id))?.delivery.status === 'failed');
    expect((await t.repository.get(id))?.delivery).toMatchObject({ attempts: 3, error: 'Gave up after 3 attempts: Pushover answered 503' });
    expect(provider.sent).toHaveLength(3);
  });

  it('answers 201 once the first attempt timed out and records it as pending', async () => {
    const hanging = deferred();
    const provider = new FakePushProvider().willAnswer(hanging.promise);
    const clock = new ManualClock();
    const t = await buildTestApp({ provider, clock, config: { PROVIDER_TIMEOUT_MS: 5_000, DELIVERY_RETRY_MIN_MS: 60_000 } });
    let answered = false;
    const answer = request(t.app)
      .post('/notifications')
      .send(body)
      .then((r) => ((answered = true), r));
    await eventually(() => provider.sent.length === 1, 'the first attempt');
    // An attempt may take PROVIDER_TIMEOUT_MS and 2 s more (the provider's own timeout fires first).
    clock.advance(6_999);
    await drainEventLoop();
    expect(answered).toBe(false);
    // The attempt's timeout, on the clock, is what answers: the provider still hangs.
    clock.advance(1);
    const res = await answer;
    expect(res.status).toBe(201);
    expect(res.body.delivery).toMatchObject({ status: 'pending', attempts: 1, error: expect.stringMatching(/did not finish within/) });
    hanging.resolve({ request: 'late' });
    await t.delivery.stop();
  });

  it('persists the attempt as pending with its count before the request goes out', async () => {
    const hanging = deferred();
    const repository = new InMemoryNotificationRepository([pendingRecord('A')]);
    const w = worker(repository, new FakePushProvider().willAnswer(hanging.promise));
    const done = w.deliverNow((await repository.get('A'))!);
    await eventually(async () => (await repository.get('A'))?.delivery.attempts === 1);
    expect((await repository.get('A'))?.delivery).toMatchObject({ status: 'pending', attempts: 1, lastAttemptAt: expect.any(String) });
    hanging.resolve({ request: 'r' });
    expect((await done).delivery).toMatchObject({ status: 'sent', attempts: 1, request: 'r' });
  });

  it('sends a notification once even when asked twice at the same time', async () => {
    const repository = new InMemoryNotificationRepository([pendingRecord('A')]);
    const provider = new FakePushProvider();
    const w = worker(repository, provider);
    await Promise.all([w.deliverNow((await repository.get('A'))!), w.deliverNow((await repository.get('A'))!)]);
    await w.deliverNow((await repository.get('A'))!);
    expect(provider.sent).toHaveLength(1);
  });

  it('resumes pending deliveries after a restart and leaves sent, failed and skipped ones alone', async () => {
    const repository = new InMemoryNotificationRepository([
      pendingRecord('P', { attempts: 1, nextAttemptAt: new Date(Date.now() - 1000).toISOString(), error: 'Pushover answered 503' }),
      pendingRecord('S', { status: 'sent', attempts: 1, request: 'old' }),
      pendingRecord('F', { status: 'failed', attempts: 1, error: 'bad' }),
      pendingRecord('K', { status: 'skipped' }),
    ]);
    const provider = new FakePushProvider();
    const w = worker(repository, provider);
    expect(await w.resume()).toBe(1);
    await eventually(async () => (await repository.get('P'))?.delivery.status === 'sent');
    expect((await repository.get('P'))?.delivery).toEqual({ status: 'sent', attempts: 2, request: 'req-1', lastAttemptAt: expect.any(String) });
    expect(provider.sent).toHaveLength(1);
    await w.stop();
  });

  it('waits for the planned time of a resumed retry', async () => {
    const clock = new ManualClock();
    const repository = new InMemoryNotificationRepository([pendingRecord('P', { attempts: 1, nextAttemptAt: new Date(clock.now() + 150).toISOString() })]);
    const provider = new FakePushProvider();
    const w = worker(repository, provider, clock);
    await w.resume();
    clock.advance(149);
    expect(provider.sent).toHaveLength(0);
    clock.advance(1);
    await eventually(() => provider.sent.length === 1);
    await w.stop();
  });

  it('does not send a notification deleted before its retry', async () => {
    const provider = new FakePushProvider().willAnswer(retryable());
    const clock = new ManualClock();
    const t = await buildTestApp({ provider, clock, config: { DELIVERY_RETRY_MIN_MS: 1_000 } });
    const id = (await request(t.app).post('/notifications').send(body)).body.id;
    expect(t.delivery.scheduled).toBe(1);
    await request(t.app).delete(`/notifications/${id}`);
    // The retry timer fires (and finds nothing to send) within the backoff plus its jitter.
    clock.advance(1_100);
    expect(t.delivery.scheduled).toBe(0);
    await t.delivery.stop();
    expect(provider.sent).toHaveLength(1);
  });

  it('records an accepted send it could not write at first later, without sending it again', async () => {
    const repository = new InMemoryNotificationRepository([pendingRecord('A')]);
    const provider = new FakePushProvider();
    const update = repository.update.bind(repository);
    let failed = false;
    // The history fails exactly once: on the write that records the provider's acceptance.
    repository.update = async (id, patch) => {
      if (patch.delivery?.status === 'sent' && !failed) {
        failed = true;
        throw new Error('disk full');
      }
      return update(id, patch);
    };
    const w = worker(repository, provider);
    await w.deliverNow((await repository.get('A'))!);
    expect((await repository.get('A'))?.delivery.status).toBe('pending');
    await eventually(async () => (await repository.get('A'))?.delivery.status === 'sent');
    expect((await repository.get('A'))?.delivery).toMatchObject({ status: 'sent', attempts: 1, request: 'req-1' });
    expect(provider.sent).toHaveLength(1);
    await w.stop();
  });

  it('keeps at most two sends in flight', async () => {
    const gates = [deferred(), deferred(), deferred()];
    const repository = new InMemoryNotificationRepository(['A', 'B', 'C'].map((id) => pendingRecord(id)));
    const provider = new FakePushProvider().willAnswer(...gates.map((g) => g.promise));
    const w = worker(repository, provider);
    const records = await Promise.all(['A', 'B', 'C'].map((id) => repository.get(id)));
    const all = records.map((record) => w.deliverNow(record!));
    await eventually(() => provider.sent.length === 2);
    // A turn of the event loop: a third send past the limit would have started with the other two.
    await new Promise((r) => setImmediate(r));
    expect(provider.sent).toHaveLength(2);
    gates.forEach((g, i) => g.resolve({ request: `r${i}` }));
    await Promise.all(all);
    expect(provider.sent).toHaveLength(3);
  });

  it('stops without sending what is scheduled; the record stays pending for the next start', async () => {
    const clock = new ManualClock();
    const repository = new InMemoryNotificationRepository([pendingRecord('P', { attempts: 1, nextAttemptAt: new Date(clock.now() + 50).toISOString() })]);
    const provider = new FakePushProvider();
    const w = worker(repository, provider, clock);
    const resumed = w.resume();
    await w.stop();
    await resumed;
    clock.advance(100);
    expect(clock.timers).toBe(0);
    expect(provider.sent).toHaveLength(0);
    expect((await repository.get('P'))?.delivery.status).toBe('pending');
  });
});
