import { ManualClock } from '@homeops/common';
import { drainEventLoop, eventually } from '@homeops/test-kit';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { parseRecipientsVariable } from '../../src/adapters/pushover/recipient-map.js';
import { InMemoryPlanStore } from '../../src/adapters/storage/in-memory-plan-store.js';
import { MAX_PLANS } from '../../src/domain/plans/planner.js';
import { startFakePushoverApi } from '../pushover/fake-pushover-api.js';
import { startHouseholdApp } from '../pushover/household-kit.js';
import { API_TOKEN, USER_KEY } from '../pushover/pushover-test-kit.js';

// Scheduled sends and heartbeats on a ManualClock, through the real Pushover adapter to a fake Pushover.
const OPS = 'oPs000000000000000000000000001';
const MINUTE = 60_000;

let closeFake: (() => Promise<void>) | undefined;
afterEach(async () => closeFake?.());

async function household() {
  const fake = await startFakePushoverApi({ token: API_TOKEN, users: { [USER_KEY]: [], [OPS]: ['phone'] } });
  closeFake = fake.close;
  const clock = new ManualClock(Date.parse('2026-11-26T08:00:00Z'));
  const recipients = { recipients: parseRecipientsVariable(`ops=${OPS}`), unmapped: 'default' as const };
  const started = await startHouseholdApp(fake.url, { userKey: USER_KEY, recipients }, { clock, config: { EMERGENCY_POLL_SECONDS: 3600 } });
  const pass = async (ms: number, step = 1_000) => {
    for (let t = 0; t < ms; t += step) {
      clock.advance(Math.min(step, ms - t));
      await drainEventLoop();
      await started.planner.settled();
    }
  };
  return { fake, clock, pass, ...started };
}

describe('scheduled sends', () => {
  it('sends 5 minutes later exactly once, lists it until then, and a cancelled one never goes out', async () => {
    const { fake, app, pass } = await household();
    const put = await request(app).put('/scheduled/backup-reminder').send({ recipient: 'ops', message: 'Check the backup', delaySeconds: 300 });
    await request(app).put('/scheduled/never').send({ recipient: 'ops', message: 'never', sendAt: '2026-11-26T08:03:00Z' }).expect(200);
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      key: 'backup-reminder',
      sendAt: '2026-11-26T08:05:00.000Z',
      notification: { recipient: 'ops', message: 'Check the backup' },
    });
    expect((await request(app).get('/scheduled')).body.scheduled.map((s: { key: string }) => s.key)).toEqual(['never', 'backup-reminder']);
    await request(app).delete('/scheduled/never').expect(204);

    await pass(5 * MINUTE - 1_000);
    expect(fake.count('messages')).toBe(0);
    await pass(1_000);
    await eventually(() => fake.count('messages') === 1);
    await pass(10 * MINUTE, MINUTE);
    expect(fake.calls.filter((c) => c.endpoint === 'messages').map((c) => c.fields.message)).toEqual(['Check the backup']);
    expect((await request(app).get('/scheduled')).body).toEqual({ scheduled: [] });
    expect((await request(app).get('/notifications/ops')).body.map((n: { message: string }) => n.message)).toEqual(['Check the backup']);
  });

  it('refuses a send more than 7 days ahead and a body with both or neither of sendAt and delaySeconds', async () => {
    const { app } = await household();
    const far = await request(app)
      .put('/scheduled/x')
      .send({ recipient: 'ops', message: 'm', delaySeconds: 8 * 86_400 });
    const both = await request(app).put('/scheduled/x').send({ recipient: 'ops', message: 'm', delaySeconds: 1, sendAt: '2026-11-26T09:00:00Z' });
    const neither = await request(app).put('/scheduled/x').send({ recipient: 'ops', message: 'm' });
    expect([far.status, both.status, neither.status]).toEqual([400, 400, 400]);
    expect((await request(app).delete('/scheduled/x')).body.code).toBe('PLAN_NOT_FOUND');
  });
});

describe('heartbeats', () => {
  it('sends once when a ping is late, not again while it stays down, and the next ping cancels the alarm and says recovered', async () => {
    const { fake, app, pass, events } = await household();
    const put = await request(app)
      .put('/heartbeats/nightly-backup')
      .send({
        intervalSeconds: 3600,
        graceSeconds: 600,
        recoveredNote: true,
        notification: { recipient: 'ops', title: 'Backup', message: 'The nightly backup did not report', priority: 2 },
      });
    expect(put.body).toMatchObject({ name: 'nightly-backup', state: 'up', nextDueAt: '2026-11-26T09:10:00.000Z', pingPath: '/heartbeats/nightly-backup/ping' });

    await pass(50 * MINUTE, MINUTE);
    await request(app).get('/heartbeats/nightly-backup/ping').expect(200);
    await pass(69 * MINUTE, MINUTE);
    expect(fake.count('messages')).toBe(0);
    await pass(2 * MINUTE, MINUTE);
    await eventually(() => fake.count('messages') === 1);
    await pass(5 * 3600_000, 10 * MINUTE);
    expect(fake.count('messages')).toBe(1);
    const [alarm] = fake.calls.filter((c) => c.endpoint === 'messages');
    expect(alarm!.fields).toMatchObject({ priority: '2', title: 'Backup', tags: expect.stringMatching(/^alert-/) });
    expect((await request(app).get('/heartbeats')).body.heartbeats).toEqual([
      expect.objectContaining({ state: 'down', missedAt: '2026-11-26T10:00:00.000Z', nextDueAt: null }),
    ]);

    const ping = await request(app).post('/heartbeats/nightly-backup/ping');
    expect(ping.body).toMatchObject({ state: 'up' });
    await eventually(() => fake.count('cancel') === 1);
    await eventually(() => fake.count('messages') === 2);
    expect(fake.calls.filter((c) => c.endpoint === 'messages')[1]!.fields).toMatchObject({ title: 'Resolved: Backup', priority: '-1' });
    expect(events.filter((e) => e.type === 'alarm-ended')).toHaveLength(1);
  });
});

describe('a send cut off after its notification was stored', () => {
  it('is not sent again when it is taken up after the claim lapses', async () => {
    const fake = await startFakePushoverApi({ token: API_TOKEN, users: { [USER_KEY]: [], [OPS]: ['phone'] } });
    closeFake = fake.close;
    const clock = new ManualClock(Date.parse('2026-11-26T08:00:00Z'));
    // The store loses the write that drops the sent plan, as a process killed at that moment would.
    const plans = new InMemoryPlanStore();
    const swap = plans.swap.bind(plans);
    let dropped = 0;
    plans.swap = (kind, key, version, next) => (next === undefined && dropped++ === 0 ? Promise.reject(new Error('killed')) : swap(kind, key, version, next));
    const recipients = { recipients: parseRecipientsVariable(`ops=${OPS}`), unmapped: 'default' as const };
    const { app, planner } = await startHouseholdApp(fake.url, { userKey: USER_KEY, recipients }, { clock, plans });
    await request(app).put('/scheduled/once').send({ recipient: 'ops', message: 'only once', delaySeconds: 60 }).expect(200);

    for (let i = 0; i < 10; i++) {
      clock.advance(MINUTE);
      await drainEventLoop();
      await planner.settled();
    }
    expect(dropped).toBeGreaterThanOrEqual(2);
    expect(fake.count('messages')).toBe(1);
    expect((await request(app).get('/scheduled')).body).toEqual({ scheduled: [] });
  });
});

describe('POST /notifications with sendAt or delaySeconds', () => {
  it('schedules instead of sending: 202 with the key, listed under /scheduled, sent once when due', async () => {
    const { fake, app, pass } = await household();
    const later = await request(app).post('/notifications?delaySeconds=120&key=tea').send({ recipient: 'ops', message: 'Tea is ready' });
    const at = await request(app).post('/notifications?sendAt=2026-11-26T08:10:00Z').send({ recipient: 'ops', message: 'Stand-up' });
    const both = await request(app).post('/notifications?sendAt=2026-11-26T08:10:00Z&delaySeconds=5').send({ recipient: 'ops', message: 'x' });

    expect(later.status).toBe(202);
    expect(later.headers.location).toBe('/scheduled/tea');
    expect(later.body).toMatchObject({ key: 'tea', sendAt: '2026-11-26T08:02:00.000Z' });
    expect(at.status).toBe(202);
    expect(both.status).toBe(400);
    expect((await request(app).get('/scheduled')).body.scheduled.map((s: { key: string }) => s.key)).toEqual(['tea', at.body.key]);
    expect(fake.count('messages')).toBe(0);

    await pass(10 * MINUTE, MINUTE);
    await eventually(() => fake.count('messages') === 2);
    expect((await request(app).get('/scheduled')).body).toEqual({ scheduled: [] });
  });
});

describe('how many plans are kept', () => {
  it('refuses a new one past MAX_PLANS with LIMIT_REACHED, and still takes a change of one kept', async () => {
    const plans = new InMemoryPlanStore();
    for (let i = 0; i < MAX_PLANS; i++)
      await plans.put({
        kind: 'send',
        key: `k${i}`,
        sendAt: Date.parse('2026-12-01T00:00:00Z'),
        // Spread over recipients, each under MAX_PLANS_PER_RECIPIENT: what fills up here is the bound on them all.
        notification: { recipient: `r${i % 20}`, title: '', message: 'm', priority: 0 },
        createdAt: 0,
      });
    const fake = await startFakePushoverApi({ token: API_TOKEN, users: { [USER_KEY]: [], [OPS]: ['phone'] } });
    closeFake = fake.close;
    const recipients = { recipients: parseRecipientsVariable(`ops=${OPS}`), unmapped: 'default' as const };
    const { app } = await startHouseholdApp(fake.url, { userKey: USER_KEY, recipients }, { clock: new ManualClock(Date.parse('2026-11-26T08:00:00Z')), plans });
    const refused = await request(app).put('/scheduled/one-more').send({ recipient: 'ops', message: 'm', delaySeconds: 60 });
    const beat = await request(app)
      .put('/heartbeats/one-more')
      .send({ intervalSeconds: 60, notification: { recipient: 'ops', message: 'm' } });
    const changed = await request(app).put('/scheduled/k1').send({ recipient: 'ops', message: 'changed', delaySeconds: 60 });
    expect([refused.status, beat.status, changed.status]).toEqual([409, 409, 200]);
    expect(refused.body).toMatchObject({ code: 'LIMIT_REACHED', error: expect.stringContaining(String(MAX_PLANS)) });
  });

  it('checks the limit and finds the plan a change, ping or cancel names without reading every plan', async () => {
    const plans = new InMemoryPlanStore();
    let listed = 0;
    const list = plans.list.bind(plans);
    plans.list = () => (listed++, list());
    const fake = await startFakePushoverApi({ token: API_TOKEN, users: { [USER_KEY]: [], [OPS]: ['phone'] } });
    closeFake = fake.close;
    const recipients = { recipients: parseRecipientsVariable(`ops=${OPS}`), unmapped: 'default' as const };
    const { app } = await startHouseholdApp(fake.url, { userKey: USER_KEY, recipients }, { clock: new ManualClock(Date.parse('2026-11-26T08:00:00Z')), plans });
    const afterStart = listed;

    await request(app).put('/scheduled/tea').send({ recipient: 'ops', message: 'm', delaySeconds: 60 }).expect(200);
    await request(app)
      .put('/heartbeats/cron')
      .send({ intervalSeconds: 60, notification: { recipient: 'ops', message: 'm' } })
      .expect(200);
    await request(app).post('/heartbeats/cron/ping').expect(200);
    await request(app).delete('/scheduled/tea').expect(204);
    await request(app).delete('/heartbeats/cron').expect(204);
    await request(app).delete('/heartbeats/cron').expect(404);

    expect(listed).toBe(afterStart);
    expect(await plans.count()).toBe(0);
  });
});
