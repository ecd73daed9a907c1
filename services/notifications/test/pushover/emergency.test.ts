import { ManualClock, type Clock } from '@homeops/common';
import { eventually } from '@homeops/test-kit';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { parseRecipientsVariable } from '../../src/adapters/pushover/recipient-map.js';
import type { NotificationRecord } from '../../src/domain/notification.js';
import type { NotificationRepository } from '../../src/domain/notification-repository.js';
import { openRealStorage } from '../support/test-app.js';
import { startFakePushoverApi } from './fake-pushover-api.js';
import { startHouseholdApp } from './household-kit.js';
import { API_TOKEN, USER_KEY } from './pushover-test-kit.js';

const ALICE = 'aLiCe0000000000000000000000001';
const FAMILY = 'gRoUp00000000000000000000000f1';
const MEMBER = 'mEmBeR0000000000000000000000m1';

let closeFake: (() => Promise<void>) | undefined;
afterEach(async () => closeFake?.());

async function household(config: { poll?: number; timeoutMs?: number; repository?: NotificationRepository; clock?: Clock } = {}) {
  const fake = await startFakePushoverApi({ token: API_TOKEN, users: { [USER_KEY]: [], [ALICE]: ['iphone'], [FAMILY]: [] } });
  closeFake = fake.close;
  const recipients = { recipients: parseRecipientsVariable(`alice=${ALICE};family=${FAMILY}`), unmapped: 'default' as const };
  const started = await startHouseholdApp(
    fake.url,
    { userKey: USER_KEY, recipients },
    {
      config: { EMERGENCY_POLL_SECONDS: config.poll ?? 0.05, PROVIDER_TIMEOUT_MS: config.timeoutMs ?? 1000 },
      ...(config.repository ? { repository: config.repository } : {}),
      ...(config.clock ? { clock: config.clock } : {}),
    },
  );
  return { fake, ...started };
}

const POLL_MS = 50;
const alarm = { recipient: 'alice', title: 'Smoke', message: 'Smoke in the kitchen', priority: 2 };

describe('emergency notifications (priority 2) that end', () => {
  it('sends retry, expire, callback and tags as given, and the defaults when not', async () => {
    const { fake, app } = await household({ poll: 60 });
    const given = await request(app)
      .post('/notifications')
      .send({ ...alarm, retry: 30, expire: 600, callback: 'https://example.org/ack', tags: 'smoke,kitchen' });
    await request(app).post('/notifications').send(alarm);

    const [first, second] = fake.calls.filter((c) => c.endpoint === 'messages').map((c) => c.fields);
    expect(first).toMatchObject({ priority: '2', retry: '30', expire: '600', callback: 'https://example.org/ack', tags: 'smoke,kitchen' });
    expect(second).toMatchObject({ retry: '60', expire: '3600' });
    expect(second).not.toHaveProperty('callback');
    expect(given.body).toMatchObject({
      emergency: { retry: 30, expire: 600, callback: 'https://example.org/ack', tags: 'smoke,kitchen' },
      delivery: { status: 'sent', receipt: expect.any(String) },
    });
  });

  it('refuses out-of-range repeats, and emergency fields on other priorities, naming the field', async () => {
    const { fake, app } = await household({ poll: 60 });
    const tooOften = await request(app)
      .post('/notifications')
      .send({ ...alarm, retry: 29 });
    const tooLong = await request(app)
      .post('/notifications')
      .send({ ...alarm, expire: 10_801 });
    const notEmergency = await request(app)
      .post('/notifications')
      .send({ ...alarm, priority: 1, retry: 60 });
    expect([tooOften.status, tooLong.status, notEmergency.status]).toEqual([400, 400, 400]);
    expect(tooOften.body.details).toEqual([expect.objectContaining({ path: 'body.retry' })]);
    expect(tooLong.body.details).toEqual([expect.objectContaining({ path: 'body.expire' })]);
    expect(notEmergency.body.details).toEqual([{ path: 'body.retry', message: 'applies to emergency notifications only (priority 2)' }]);
    expect(fake.count('messages')).toBe(0);
  });

  it('polls the receipt until acknowledged, then records who and when, marks it read and tells the stream', async () => {
    const clock = new ManualClock();
    const { fake, app, events, emergencies } = await household({ poll: POLL_MS / 1000, clock });
    const created = (await request(app).post('/notifications').send(alarm)).body as NotificationRecord;
    const receipt = created.delivery.receipt!;
    // Time moves one poll interval per look: a poll is due at each step once the previous one has armed it.
    const afterAPoll = (outcome: () => boolean) => () => {
      clock.advance(POLL_MS);
      return outcome();
    };

    await eventually(
      afterAPoll(() => fake.count('receipt', receipt) >= 3),
      'three polls of the receipt',
    );
    fake.acknowledge(receipt, ALICE, 'iphone');
    await eventually(
      afterAPoll(() => events.some((e) => e.type === 'acknowledged')),
      'the acknowledgement',
    );
    const polls = fake.count('receipt', receipt);
    // An hour later on the clock, and whatever that set off finished (stop waits for checks under way): not one poll more.
    clock.advance(3_600_000);
    await emergencies!.stop();

    const stored = (await request(app).get(`/notifications/single/${created.id}`)).body as NotificationRecord;
    expect(stored).toMatchObject({ read: true, emergency: { acknowledgedBy: 'alice', acknowledgedByDevice: 'iphone', acknowledgedAt: expect.any(String) } });
    expect(stored.readAt).toBe(stored.emergency!.acknowledgedAt);
    expect(JSON.stringify(stored)).not.toContain(ALICE);
    expect(fake.count('receipt', receipt)).toBe(polls);
    expect(emergencies!.size).toBe(0);
    expect(fake.count('cancel')).toBe(0);
  });

  it('names a group member who acknowledged by the group, never by their key', async () => {
    const { fake, app, events } = await household();
    const created = (
      await request(app)
        .post('/notifications')
        .send({ ...alarm, recipient: 'family' })
    ).body as NotificationRecord;
    fake.acknowledge(created.delivery.receipt!, MEMBER, 'tablet');
    await eventually(() => events.some((e) => e.type === 'acknowledged'));
    const stored = (await request(app).get(`/notifications/single/${created.id}`)).body as NotificationRecord;
    expect(stored.emergency).toMatchObject({ acknowledgedBy: 'a member of family', acknowledgedByDevice: 'tablet' });
    expect(JSON.stringify(stored)).not.toContain(MEMBER);
  });

  it('records when an unacknowledged alarm expired, and stops polling', async () => {
    const { fake, app, events } = await household();
    const created = (
      await request(app)
        .post('/notifications')
        .send({ ...alarm, expire: 30 })
    ).body as NotificationRecord;
    fake.alarm(created.delivery.receipt!)!.expiresAt = Date.now() + 150;
    await eventually(() => events.some((e) => e.type === 'alarm-ended'));
    const stored = (await request(app).get(`/notifications/single/${created.id}`)).body as NotificationRecord;
    expect(stored.emergency?.expiredAt).toEqual(expect.any(String));
    expect(stored.read).toBe(false);
  });

  it('cancels the alarm at Pushover when it is read here first, deleted, or read with read-all', async () => {
    const { fake, app, events } = await household({ poll: 60 });
    const read = (await request(app).post('/notifications').send(alarm)).body as NotificationRecord;
    const readAll = (await request(app).post('/notifications').send(alarm)).body as NotificationRecord;
    const deleted = (await request(app).post('/notifications').send(alarm)).body as NotificationRecord;

    await request(app).patch(`/notifications/${read.id}/read`).expect(200);
    await eventually(() => fake.alarm(read.delivery.receipt!)!.cancelled);
    await request(app).delete(`/notifications/${deleted.id}`).expect(204);
    await eventually(() => fake.alarm(deleted.delivery.receipt!)!.cancelled);
    await request(app).post('/notifications/alice/read-all').expect(200);
    await eventually(() => fake.alarm(readAll.delivery.receipt!)!.cancelled);

    await eventually(() => events.filter((e) => e.type === 'alarm-ended').length === 2);
    const stored = (await request(app).get(`/notifications/single/${read.id}`)).body as NotificationRecord;
    expect(stored.emergency?.cancelledAt).toEqual(expect.any(String));
    expect(fake.count('cancel')).toBe(3);
  });

  it('never rings twice: a send that got no answer is unknown and not retried; a 5xx answer (nothing created) is retried', async () => {
    const clock = new ManualClock();
    const { fake, app, delivery } = await household({ poll: 60, timeoutMs: 300, clock });
    fake.force('hang');
    const unanswered = await request(app).post('/notifications').send(alarm);
    expect(unanswered.body.delivery).toMatchObject({ status: 'unknown', attempts: 1, error: expect.stringContaining('not sent again') });
    // No retry is waiting for it: however long the clock runs, nothing goes out again.
    expect(delivery.scheduled).toBe(0);
    expect(fake.count('messages')).toBe(1);

    fake.force({ status: 503, body: { status: 0, errors: ['busy'] } });
    const busy = (await request(app).post('/notifications').send(alarm)).body as NotificationRecord;
    expect(busy.delivery).toMatchObject({ status: 'pending', attempts: 1 });
    expect(delivery.scheduled).toBe(1);
    await eventually(() => {
      clock.advance(100);
      return fake.count('messages') === 3;
    }, 'the retry of the 5xx');
  });

  it('follows ringing alarms again after a restart, and an emergency cut off mid-send becomes unknown', async () => {
    const { repository } = await openRealStorage();
    const first = await household({ poll: 60, repository });
    const created = (await request(first.app).post('/notifications').send(alarm)).body as NotificationRecord;
    await first.stop();
    await repository.insert({
      ...created,
      id: `${created.id.slice(0, -1)}x`,
      delivery: { status: 'pending', attempts: 1, to: 'alice', lastAttemptAt: created.createdAt },
    });
    const before = first.fake.count('messages');

    const second = await startHouseholdApp(first.fake.url, { userKey: USER_KEY }, { repository, config: { EMERGENCY_POLL_SECONDS: 0.05 } });
    await eventually(() => first.fake.count('receipt', created.delivery.receipt) > 0);
    await eventually(async () => (await repository.get(`${created.id.slice(0, -1)}x`))?.delivery.status === 'unknown');
    expect(first.fake.count('messages')).toBe(before);
    expect(second.emergencies?.size).toBe(1);
  });
});

describe('resending', () => {
  it('sends an unknown, failed or expired delivery again on request, and refuses one that was sent', async () => {
    const { fake, app } = await household({ poll: 60, timeoutMs: 300 });
    fake.force('hang');
    const unknown = (await request(app).post('/notifications').send(alarm)).body as NotificationRecord;
    expect(unknown.delivery.status).toBe('unknown');

    const resent = await request(app).post(`/notifications/${unknown.id}/resend`);
    const again = await request(app).post(`/notifications/${unknown.id}/resend`);

    expect(resent.status).toBe(200);
    expect(resent.body.delivery).toMatchObject({ status: 'sent', attempts: 1, to: 'alice', resentAt: expect.any(String), receipt: expect.any(String) });
    expect(fake.count('messages')).toBe(2);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({
      error: expect.stringContaining('delivery status sent'),
      solution: expect.stringContaining('failed, expired or unknown'),
    });
    expect((await request(app).post('/notifications/NOPE/resend')).status).toBe(404);
  });
});
