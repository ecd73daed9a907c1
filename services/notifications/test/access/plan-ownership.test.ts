import { describe, expect, it } from 'vitest';
import { MAX_PLANS, MAX_PLANS_PER_RECIPIENT } from '../../src/domain/plans/planner.js';
import type { PlanStore } from '../../src/domain/plans/plan.js';
import { InMemoryPlanStore } from '../../src/adapters/storage/in-memory-plan-store.js';
import { buildKeyedApp, issueToken, send, sendAsAdmin, type KeyedApp } from './access-kit.js';

const BOBS_SENDS = [{ scope: 'notifications:send' as const, recipients: ['bob'] }];
const BACKUP = { intervalSeconds: 3600, notification: { recipient: 'ops', title: 'Backup', message: 'The nightly backup did not report', priority: 2 } };
const BINS = { recipient: 'alice', title: 'Bins', message: 'Take the bins out', delaySeconds: 3600 };

/** The household's plans, made with the API key: ops' nightly-backup heartbeat and alice's bins reminder. */
async function household(plans?: PlanStore): Promise<KeyedApp & { heartbeat: unknown; scheduled: unknown }> {
  const t = await buildKeyedApp(plans ? { plans } : {});
  await sendAsAdmin(t.port, { method: 'PUT', target: '/heartbeats/nightly-backup', body: BACKUP });
  await sendAsAdmin(t.port, { method: 'PUT', target: '/scheduled/bins', body: BINS });
  return { ...t, heartbeat: await t.plans.get('heartbeat', 'nightly-backup'), scheduled: await t.plans.get('send', 'bins') };
}

/** Plans of `recipient` put straight into a store, as if made earlier. */
async function filledStore(count: number, recipientOf: (i: number) => string): Promise<InMemoryPlanStore> {
  const plans = new InMemoryPlanStore();
  for (let i = 0; i < count; i++) {
    await plans.put({
      kind: 'send',
      key: `k${i}`,
      sendAt: Date.now() + 3_600_000,
      notification: { recipient: recipientOf(i), title: '', message: 'm', priority: 0 },
      createdAt: 0,
    });
  }
  return plans;
}

describe("a token limited to bob, on other recipients' plans", () => {
  it("PUT /heartbeats/nightly-backup (ops') answers 403 SCOPE_MISSING naming no recipient, and the heartbeat stays as it was", async () => {
    const t = await household();
    const bob = await issueToken(t.port, BOBS_SENDS);

    const res = await send(t.port, {
      method: 'PUT',
      target: '/heartbeats/nightly-backup',
      auth: bob.secret,
      body: { ...BACKUP, notification: { recipient: 'bob', message: 'mine now' } },
    });

    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ code: 'SCOPE_MISSING', error: expect.stringContaining('notifications:send') });
    expect(res.body.toString('utf8')).not.toContain('ops');
    expect(await t.plans.get('heartbeat', 'nightly-backup')).toEqual(t.heartbeat);
  });

  it("PUT /scheduled/bins and POST /notifications?key=bins (alice's) answer 403, and the send stays alice's", async () => {
    const t = await household();
    const bob = await issueToken(t.port, BOBS_SENDS);

    const put = await send(t.port, { method: 'PUT', target: '/scheduled/bins', auth: bob.secret, body: { ...BINS, recipient: 'bob' } });
    const post = await send(t.port, {
      method: 'POST',
      target: '/notifications?delaySeconds=60&key=bins',
      auth: bob.secret,
      body: { recipient: 'bob', message: 'x' },
    });

    expect([put.status, post.status]).toEqual([403, 403]);
    expect(post.json).toMatchObject({ code: 'SCOPE_MISSING' });
    expect(await t.plans.get('send', 'bins')).toEqual(t.scheduled);
  });

  it('DELETE and ping answer 404 PLAN_NOT_FOUND byte for byte as for a key nobody used, and change nothing', async () => {
    const t = await household();
    const bob = await issueToken(t.port, BOBS_SENDS);

    const answers = await Promise.all(
      [
        ['DELETE', '/scheduled/bins', '/scheduled/nobodys'],
        ['DELETE', '/heartbeats/nightly-backup', '/heartbeats/nobodys'],
        ['GET', '/heartbeats/nightly-backup/ping', '/heartbeats/nobodys/ping'],
        ['POST', '/heartbeats/nightly-backup/ping', '/heartbeats/nobodys/ping'],
      ].map(async ([method, foreign, unknown]) => {
        const a = await send(t.port, { method: method!, target: foreign!, auth: bob.secret });
        const b = await send(t.port, { method: method!, target: unknown!, auth: bob.secret });
        return { status: a.status, same: a.body.toString('utf8').replace(/bins|nightly-backup/, '') === b.body.toString('utf8').replace('nobodys', '') };
      }),
    );

    expect(answers).toEqual(Array(4).fill({ status: 404, same: true }));
    expect(await t.plans.get('send', 'bins')).toEqual(t.scheduled);
    expect(await t.plans.get('heartbeat', 'nightly-backup')).toEqual(t.heartbeat);
  });

  it('still makes, changes and cancels its own plans, and may move a plan between recipients it reaches', async () => {
    const t = await household();
    const both = await issueToken(t.port, [{ scope: 'notifications:send', recipients: ['alice', 'bob'] }]);

    const moved = await send(t.port, { method: 'PUT', target: '/scheduled/bins', auth: both.secret, body: { ...BINS, recipient: 'bob' } });
    const own = await send(t.port, {
      method: 'PUT',
      target: '/heartbeats/bobs-cron',
      auth: both.secret,
      body: { ...BACKUP, notification: { recipient: 'bob', message: 'm' } },
    });
    const cancelled = await send(t.port, { method: 'DELETE', target: '/heartbeats/bobs-cron', auth: both.secret });

    expect([moved.status, own.status, cancelled.status]).toEqual([200, 200, 204]);
    expect(await t.plans.get('send', 'bins')).toMatchObject({ notification: { recipient: 'bob' } });
  });
});

describe('a plan made under the key while a PUT is being checked (another instance on the same database)', () => {
  it("is checked again and not overwritten: bob's PUT answers 403 and ops' heartbeat stays", async () => {
    const plans = new InMemoryPlanStore();
    const countFor = plans.countFor.bind(plans);
    let raced = false;
    // Between bob's read of the free key and his write, ops' heartbeat is made under it.
    plans.countFor = async (recipient) => {
      if (!raced) {
        raced = true;
        await plans.put({
          kind: 'heartbeat',
          key: 'nightly-backup',
          intervalMs: 3_600_000,
          graceMs: 0,
          notification: { ...BACKUP.notification, title: 'Backup' },
          recoveredNote: false,
          lastPingAt: 0,
          status: { state: 'up' },
          createdAt: 0,
        });
      }
      return countFor(recipient);
    };
    const t = await buildKeyedApp({ plans });
    const bob = await issueToken(t.port, BOBS_SENDS);

    const res = await send(t.port, {
      method: 'PUT',
      target: '/heartbeats/nightly-backup',
      auth: bob.secret,
      body: { ...BACKUP, notification: { recipient: 'bob', message: 'mine now' } },
    });

    expect(raced).toBe(true);
    expect(res.status).toBe(403);
    expect(await plans.get('heartbeat', 'nightly-backup')).toMatchObject({ version: 1, notification: { recipient: 'ops' } });
  });
});

describe('how many plans one recipient may keep', () => {
  it(`refuses bob's ${MAX_PLANS_PER_RECIPIENT + 1}th plan with 409 LIMIT_REACHED, while alice still plans and bob still changes his`, async () => {
    const t = await buildKeyedApp({ plans: await filledStore(MAX_PLANS_PER_RECIPIENT, () => 'bob') });
    const bob = await issueToken(t.port, BOBS_SENDS);
    const alice = await issueToken(t.port, [{ scope: 'notifications:send', recipients: ['alice'] }]);

    const refused = await send(t.port, {
      method: 'PUT',
      target: '/heartbeats/one-more',
      auth: bob.secret,
      body: { ...BACKUP, notification: { recipient: 'bob', message: 'm' } },
    });
    const changed = await send(t.port, {
      method: 'PUT',
      target: '/scheduled/k1',
      auth: bob.secret,
      body: { recipient: 'bob', message: 'changed', delaySeconds: 60 },
    });
    const alices = await send(t.port, { method: 'PUT', target: '/scheduled/bins', auth: alice.secret, body: BINS });

    expect([refused.status, changed.status, alices.status]).toEqual([409, 200, 200]);
    expect(refused.json).toMatchObject({
      code: 'LIMIT_REACHED',
      error: expect.stringContaining(`${MAX_PLANS_PER_RECIPIENT} scheduled sends and heartbeats are kept for one recipient`),
    });
    expect(await t.plans.count()).toBe(MAX_PLANS_PER_RECIPIENT + 1);
  });

  it('refuses moving a plan to a recipient that is full, and keeps it with its recipient', async () => {
    const t = await buildKeyedApp({ plans: await filledStore(MAX_PLANS_PER_RECIPIENT, () => 'bob') });
    await sendAsAdmin(t.port, { method: 'PUT', target: '/scheduled/bins', body: BINS });

    const sender = await issueToken(t.port, ['notifications:send']);

    const moved = await send(t.port, { method: 'PUT', target: '/scheduled/bins', auth: sender.secret, body: { ...BINS, recipient: 'bob' } });

    expect(moved.status).toBe(409);
    expect(moved.json).toMatchObject({ code: 'LIMIT_REACHED' });
    expect(await t.plans.get('send', 'bins')).toMatchObject({ notification: { recipient: 'alice' } });
  });

  it(`still keeps at most ${MAX_PLANS} plans in all, whichever recipients they are for`, async () => {
    const t = await buildKeyedApp({ plans: await filledStore(MAX_PLANS, (i) => `r${i % 20}`) });

    const refused = await send(t.port, {
      method: 'PUT',
      target: '/scheduled/bins',
      auth: (await issueToken(t.port, ['notifications:send'])).secret,
      body: BINS,
    });

    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({
      code: 'LIMIT_REACHED',
      error: expect.stringContaining(`${MAX_PLANS} scheduled sends and heartbeats are kept together`),
    });
  });
});
