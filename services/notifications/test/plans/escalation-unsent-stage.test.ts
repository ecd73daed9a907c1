import { ManualClock } from '@homeops/common';
import { drainEventLoop, eventually } from '@homeops/test-kit';
import type { Express } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import type { NotificationRecord } from '../../src/domain/notification.js';
import { DeliveryError, type PushReceipt } from '../../src/domain/push-provider.js';
import { FakePushProvider, retryable } from '../fakes/fake-push.provider.js';
import { buildTestApp } from '../support/test-app.js';

// A chain that ends while a stage's first send waits (for a retry, or for the circuit to close) on a ManualClock:
// that stage ends `cancelled` and is never sent.
const RETRY_MS = 30_000;
const emergency = { title: 'Water leak', message: 'Water under the sink', priority: 2, recipient: 'ops' };

/** The circuit open until `until`: Pushover is not asked before then. */
const circuitOpen = (until: number) => new DeliveryError('Pushover is refusing requests; paused', false, { waitUntil: new Date(until).toISOString() });

async function chainWithWaitingStage(stageAnswer: (clock: ManualClock) => DeliveryError) {
  const clock = new ManualClock(Date.parse('2026-11-28T08:00:00Z'));
  const provider = new FakePushProvider();
  const t = await buildTestApp({ provider, clock, config: { DELIVERY_RETRY_MIN_MS: RETRY_MS, DELIVERY_RETRY_MAX_MS: RETRY_MS * 4 } });
  await t.domain.planner.start();
  const pass = async (ms: number, step = 1_000) => {
    for (let elapsed = 0; elapsed < ms; elapsed += step) {
      clock.advance(Math.min(step, ms - elapsed));
      await drainEventLoop();
      await t.domain.planner.settled();
    }
  };
  const created = await request(t.app)
    .post('/notifications')
    .send({ ...emergency, escalate: [{ recipient: 'bob', afterSeconds: 60 }] })
    .expect(201);
  expect(provider.sent).toHaveLength(1);
  provider.willAnswer(stageAnswer(clock));
  await pass(60_000);
  await eventually(() => provider.sent.length === 2, 'the stage to bob tried once');
  const stage = await eventually(async () => {
    const [record] = (await request(t.app).get('/notifications/bob')).body as NotificationRecord[];
    return record?.delivery.status === 'pending' && record.delivery.nextAttemptAt !== undefined && record;
  }, "the stage waiting for its send's next try");
  return { t, provider, pass, first: created.body.id as string, stage };
}

describe('an escalation chain that ends while a stage waits for its send', () => {
  it.each([
    ['marking the first read', (app: Express, first: string) => request(app).patch(`/notifications/${first}/read`).expect(200)],
    ['deleting the first', (app: Express, first: string) => request(app).delete(`/notifications/${first}`).expect(204)],
  ])('%s ends the waiting stage cancelled, and it is never sent', async (_end, endChain) => {
    const { t, provider, pass, first, stage } = await chainWithWaitingStage(() => retryable());

    await endChain(t.app, first);

    await eventually(async () => (await t.repository.get(stage.id))?.delivery.status === 'cancelled', 'the stage cancelled');
    await pass(10 * RETRY_MS, 5_000);
    expect(provider.sent).toHaveLength(2);
    const stored = await t.repository.get(stage.id);
    expect(stored).toMatchObject({ read: true, escalation: { of: first, step: 1 } });
    expect(stored!.delivery).toEqual({
      status: 'cancelled',
      attempts: 1,
      lastAttemptAt: stage.delivery.lastAttemptAt,
      error: 'Not sent: its escalation chain ended (acknowledged, read, deleted or resolved) before it went out',
    });
    expect(t.delivery.scheduled).toBe(0);
  });

  it('a stage waiting for the circuit to close is cancelled, not sent once it closes', async () => {
    const { t, provider, pass, first, stage } = await chainWithWaitingStage((clock) => circuitOpen(clock.now() + 5 * 60_000));

    await request(t.app).patch(`/notifications/${first}/read`).expect(200);

    await eventually(async () => (await t.repository.get(stage.id))?.delivery.status === 'cancelled', 'the stage cancelled');
    await pass(10 * 60_000, 10_000);
    expect(provider.sent).toHaveLength(2);
    expect((await request(t.app).get('/notifications/bob')).body[0].delivery.status).toBe('cancelled');
  });

  it('a stage whose send is under way when the chain ends is waited for, and cancelled instead of retried when it fails', async () => {
    const clock = new ManualClock(Date.parse('2026-11-28T08:00:00Z'));
    const provider = new FakePushProvider();
    const t = await buildTestApp({ provider, clock, config: { DELIVERY_RETRY_MIN_MS: RETRY_MS, DELIVERY_RETRY_MAX_MS: RETRY_MS * 4 } });
    await t.domain.planner.start();
    const created = await request(t.app)
      .post('/notifications')
      .send({ ...emergency, escalate: [{ recipient: 'bob', afterSeconds: 60 }] })
      .expect(201);
    let fail!: (err: DeliveryError) => void;
    provider.willAnswer(new Promise<PushReceipt>((_resolve, reject) => (fail = reject)));
    for (let s = 0; s < 60; s++) {
      clock.advance(1_000);
      await drainEventLoop();
    }
    await eventually(() => provider.sent.length === 2, "the stage's send under way");

    const reading = request(t.app)
      .patch(`/notifications/${created.body.id}/read`)
      .then((res) => res.status);
    await drainEventLoop();
    fail(retryable());
    expect(await reading).toBe(200);

    const [stage] = await eventually(async () => {
      const list = (await request(t.app).get('/notifications/bob')).body as NotificationRecord[];
      return list[0]?.delivery.status === 'cancelled' && list;
    }, 'the stage cancelled without waiting for its retry');
    expect(stage!.delivery).toMatchObject({ status: 'cancelled', attempts: 1 });
    for (let s = 0; s < 20; s++) {
      clock.advance(RETRY_MS);
      await drainEventLoop();
      await t.domain.planner.settled();
    }
    expect(provider.sent).toHaveLength(2);
  });
});
