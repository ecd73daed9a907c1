import { ManualClock } from '@homeops/common';
import { eventually } from '@homeops/test-kit';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { parseRecipientsVariable } from '../../src/adapters/pushover/recipient-map.js';
import { PgNotificationRepository } from '../../src/adapters/storage/postgres/pg-notification.repository.js';
import { PgPlanStore } from '../../src/adapters/storage/postgres/pg-plan-store.js';
import type { Plan, StoredPlan } from '../../src/domain/plans/plan.js';
import { startFakePushoverApi } from '../pushover/fake-pushover-api.js';
import { startHouseholdApp } from '../pushover/household-kit.js';
import { API_TOKEN, USER_KEY } from '../pushover/pushover-test-kit.js';
import { freshDatabase, queryRows } from '../support/postgres-database.js';

// Two instances on one PostgreSQL, each with its own planner, plan store (on its own history pool) and ManualClock,
// both clocks moved together: a due plan is claimed by both at the same version, and goes out once.
const OPS = 'oPs000000000000000000000000001';
const BOB = 'b0b000000000000000000000000002';
const T0 = Date.parse('2026-11-26T08:00:00Z');
const MINUTE = 60_000;

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** Where the instances meet: each arrives once, and all go on when the last one has. */
interface Meeting {
  arrive(): void;
  all: Promise<void>;
}

/**
 * The PostgreSQL plan store with what the test must see: the scans it answered and the claims it tried (and whether
 * they won). With a meeting set, its next list returns only once every instance has listed: both then act on the same
 * version of a due plan, the race this test is about, made certain instead of likely.
 */
class ObservedPlanStore extends PgPlanStore {
  readonly claims: boolean[] = [];
  scans = 0;
  meeting: Meeting | undefined;

  override async list(): Promise<StoredPlan[]> {
    const meeting = this.meeting;
    this.meeting = undefined;
    const plans = await super.list();
    this.scans += 1;
    meeting?.arrive();
    await meeting?.all;
    return plans;
  }

  override async swap(kind: Plan['kind'], key: string, version: number, next: Plan | undefined): Promise<boolean> {
    const changed = await super.swap(kind, key, version, next);
    // The planner's claim of a due plan: a change to one with an attempt time (a drop or a "sent" carries none).
    const claim = next?.kind === 'heartbeat' ? next.status.state === 'down' && next.status.attemptAfter !== undefined : next?.attemptAfter !== undefined;
    if (claim) this.claims.push(changed);
    return changed;
  }
}

/** Makes the next list of each store wait for the others'. */
function listTogether(stores: ObservedPlanStore[]): void {
  let waiting = stores.length;
  let release!: () => void;
  const all = new Promise<void>((resolve) => (release = resolve));
  for (const store of stores) store.meeting = { arrive: () => void (--waiting === 0 && release()), all };
}

async function instance(url: string, fakeUrl: string, name: string) {
  const repository = new PgNotificationRepository({ url, poolMax: 3, connectTimeoutMs: 5_000, queryTimeoutMs: 10_000, leaseMs: 30_000, instanceId: name });
  await repository.open();
  closers.push(() => repository.close());
  const plans = new ObservedPlanStore(repository.pool);
  await plans.open();
  const clock = new ManualClock(T0);
  const recipients = { recipients: parseRecipientsVariable(`ops=${OPS};bob=${BOB}`), unmapped: 'default' as const };
  const app = await startHouseholdApp(fakeUrl, { userKey: USER_KEY, recipients }, { repository, clock, plans, config: { EMERGENCY_POLL_SECONDS: 3600 } });
  // Before the history closes: nothing of the instance may still use its pool (the kit's own stop finds it stopped).
  closers.push(() => app.stop());
  return { ...app, plans, clock };
}

async function twoInstances() {
  const fake = await startFakePushoverApi({ token: API_TOKEN, users: { [USER_KEY]: [], [OPS]: ['phone'], [BOB]: ['phone'] } });
  closers.push(fake.close);
  const url = await freshDatabase();
  const a = await instance(url, fake.url, 'a');
  const b = await instance(url, fake.url, 'b');
  const both = [a, b];
  /** Moves both clocks by `ms`, then waits until each instance has listed the plans again and finished what it started. */
  const pass = async (ms: number) => {
    const scans = both.map((i) => i.plans.scans);
    for (const i of both) i.clock.advance(ms);
    await eventually(() => both.every((i, n) => i.plans.scans > scans[n]!), { what: 'both instances to scan the plans', timeoutMs: 5_000 });
    await Promise.all(both.map((i) => i.planner.settled()));
  };
  return { fake, url, a, b, both, pass };
}

const messages = (fake: { calls: Array<{ endpoint: string; fields: Record<string, string> }> }) =>
  fake.calls.filter((c) => c.endpoint === 'messages').map((c) => c.fields.message);

describe('plans with two instances on one PostgreSQL', () => {
  it('sends a scheduled notification due on both instances once: one claim wins, the other loses', async () => {
    const { fake, url, a, b, both, pass } = await twoInstances();
    await request(a.app).put('/scheduled/bins').send({ recipient: 'ops', message: 'Take the bins out', delaySeconds: 60 }).expect(200);

    // Both rescan at 30 s (b learns of the plan there) and find it due when their lists return at 60 s.
    listTogether(both.map((i) => i.plans));
    await pass(MINUTE);

    await eventually(() => fake.count('messages') === 1, { what: 'the scheduled send at the fake Pushover', timeoutMs: 5_000 });
    expect([...a.plans.claims, ...b.plans.claims].sort()).toEqual([false, true]);
    await eventually(async () => (await b.plans.get('send', 'bins')) === undefined, { what: 'the sent plan to be dropped', timeoutMs: 5_000 });
    // Past the claim's lapse (2 min): nothing is left to send again.
    for (let step = 0; step < 4; step++) await pass(MINUTE);
    expect(messages(fake)).toEqual(['Take the bins out']);
    expect(await queryRows(url, 'SELECT id FROM notifications')).toHaveLength(1);
    expect((await request(b.app).get('/scheduled')).body).toEqual({ scheduled: [] });
  });

  it('sends a missed heartbeat seen by both instances once, and it stays down and sent on both', async () => {
    const { fake, url, a, b, both, pass } = await twoInstances();
    await request(a.app)
      .put('/heartbeats/cron')
      .send({ intervalSeconds: 10, notification: { recipient: 'ops', message: 'cron stopped' } })
      .expect(200);

    // a finds it late at 10 s, b at its rescan at 30 s; both lists return at 30 s with the same version.
    listTogether(both.map((i) => i.plans));
    await pass(30_000);

    await eventually(() => fake.count('messages') === 1, { what: 'the missed heartbeat at the fake Pushover', timeoutMs: 5_000 });
    expect([...a.plans.claims, ...b.plans.claims].sort()).toEqual([false, true]);
    await eventually(
      async () => {
        const plan = await a.plans.get('heartbeat', 'cron');
        return plan?.kind === 'heartbeat' && plan.status.state === 'down' && plan.status.sent;
      },
      { what: 'the episode to be recorded sent', timeoutMs: 5_000 },
    );
    for (let step = 0; step < 4; step++) await pass(MINUTE);
    expect(messages(fake)).toEqual(['cron stopped']);
    expect(await queryRows(url, 'SELECT id FROM notifications')).toHaveLength(1);
    for (const { app } of both) {
      expect((await request(app).get('/heartbeats')).body.heartbeats).toEqual([expect.objectContaining({ name: 'cron', state: 'down', nextDueAt: null })]);
    }
  });

  it('sends an escalation step due on both instances once, and the end on one costs one cancel_by_tag and stops the steps on both', async () => {
    const { fake, url, a, b, both, pass } = await twoInstances();
    const created = await request(a.app)
      .post('/notifications')
      .send({
        recipient: 'ops',
        message: 'Water under the sink',
        priority: 2,
        escalate: [
          { recipient: 'bob', afterSeconds: 60 },
          { recipient: 'ops', afterSeconds: 180 },
        ],
      })
      .expect(201);

    listTogether(both.map((i) => i.plans));
    await pass(MINUTE);

    await eventually(() => fake.count('messages') === 2, { what: 'the first step at the fake Pushover', timeoutMs: 5_000 });
    expect([...a.plans.claims, ...b.plans.claims].sort()).toEqual([false, true]);
    // The first read through the other instance ends the chain there: one cancel_by_tag for both ringing stages.
    await request(b.app).patch(`/notifications/${created.body.id}/read`).expect(200);
    await eventually(() => fake.count('cancel_by_tag') === 1, { what: 'the chain to be cancelled by tag', timeoutMs: 5_000 });
    // The end is done when its plan is gone; moving the clock past the claim before that would let the other instance
    // take the end up again as after a crash (a second cancel_by_tag, harmless at Pushover, but not what this counts).
    await eventually(async () => (await queryRows(url, "SELECT key FROM plans WHERE kind = 'escalation'")).length === 0, {
      what: 'the ended chain to leave the plan store',
      timeoutMs: 5_000,
    });
    for (let step = 0; step < 5; step++) await pass(MINUTE);

    expect(fake.count('messages')).toBe(2);
    expect(fake.count('cancel_by_tag')).toBe(1);
    expect(await queryRows(url, 'SELECT id FROM notifications')).toHaveLength(2);
    expect(await queryRows(url, "SELECT key FROM plans WHERE kind = 'escalation'")).toEqual([]);
  });
});
