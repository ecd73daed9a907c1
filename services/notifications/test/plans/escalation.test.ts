import { ManualClock } from '@homeops/common';
import { drainEventLoop, eventually } from '@homeops/test-kit';
import request from 'supertest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { parseRecipientsVariable } from '../../src/adapters/pushover/recipient-map.js';
import type { NotificationRecord } from '../../src/domain/notification.js';
import { startFakePushoverApi } from '../pushover/fake-pushover-api.js';
import { startHouseholdApp } from '../pushover/household-kit.js';
import { API_TOKEN, USER_KEY } from '../pushover/pushover-test-kit.js';

// Escalation chains on a ManualClock, through the real Pushover adapter to a fake Pushover that cancels by tag.
const OPS = 'oPs000000000000000000000000001';
const BOB = 'b0b000000000000000000000000002';
const FAMILY = 'fAm000000000000000000000000003';
const CAROL = 'cAr000000000000000000000000004';

let closeFake: (() => Promise<void>) | undefined;
afterEach(async () => closeFake?.());

async function household(options: { unmapped?: 'default' | 'refuse'; templatesFile?: string } = {}) {
  const fake = await startFakePushoverApi({
    token: API_TOKEN,
    users: { [USER_KEY]: [], [OPS]: ['phone'], [BOB]: ['phone'], [FAMILY]: ['tablet'], [CAROL]: ['phone'] },
  });
  closeFake = fake.close;
  const clock = new ManualClock(Date.parse('2026-11-26T08:00:00Z'));
  const recipients = {
    recipients: parseRecipientsVariable(`ops=${OPS};bob=${BOB};family=${FAMILY};carol=${CAROL}`),
    unmapped: options.unmapped ?? ('default' as const),
  };
  const started = await startHouseholdApp(
    fake.url,
    { userKey: USER_KEY, recipients },
    {
      clock,
      config: { EMERGENCY_POLL_SECONDS: 10, ...(options.templatesFile ? { HOOK_TEMPLATES_FILE: options.templatesFile } : {}) },
    },
  );
  const pass = async (ms: number, step = 1_000) => {
    for (let t = 0; t < ms; t += step) {
      clock.advance(Math.min(step, ms - t));
      await drainEventLoop();
      await started.planner.settled();
      await started.emergencies?.settled();
    }
  };
  const messages = () => fake.calls.filter((c) => c.endpoint === 'messages');
  const inbox = async (recipient: string): Promise<NotificationRecord[]> => (await request(started.app).get(`/notifications/${recipient}`)).body;
  return { fake, clock, pass, messages, inbox, ...started };
}

const emergency = { title: 'Water leak', message: 'Water under the sink', priority: 2 };

describe('POST /notifications with escalate', () => {
  it('sends each step in order, and an acknowledgement at stage 2 costs one cancel_by_tag and stops the later step', async () => {
    const { fake, app, pass, messages, inbox, events } = await household();
    const created = await request(app)
      .post('/notifications')
      .send({
        ...emergency,
        recipient: 'ops',
        escalate: [
          { recipient: 'bob', afterSeconds: 60 },
          { recipient: 'family', afterSeconds: 180 },
          { recipient: 'carol', afterSeconds: 600 },
        ],
      });
    expect(created.status).toBe(201);
    const first = created.body.id as string;
    const planned = created.body.escalation.steps as Array<{ id: string }>;
    expect(created.body.escalation).toEqual({
      of: first,
      step: 0,
      steps: [
        { recipient: 'bob', afterSeconds: 60, id: expect.any(String) },
        { recipient: 'family', afterSeconds: 180, id: expect.any(String) },
        { recipient: 'carol', afterSeconds: 600, id: expect.any(String) },
      ],
    });
    const tag = messages()[0]!.fields.tags!;
    expect(tag).toMatch(/^alert-chain-/);

    await pass(59_000);
    expect(messages()).toHaveLength(1);
    await pass(1_000);
    await eventually(() => messages().length === 2);
    await pass(119_000);
    expect(messages()).toHaveLength(2);
    await pass(1_000);
    await eventually(() => messages().length === 3);
    expect(messages().map((m) => [m.fields.user, m.fields.priority, m.fields.message, m.fields.tags])).toEqual([
      [OPS, '2', 'Water under the sink', tag],
      [BOB, '2', 'Water under the sink', tag],
      [FAMILY, '2', 'Water under the sink', tag],
    ]);
    const [stage1] = await inbox('bob');
    const [stage2] = await inbox('family');
    // The first lists each stage by the id it got when its step went out.
    expect([stage1!.id, stage2!.id]).toEqual([planned[0]!.id, planned[1]!.id]);
    expect([stage1!.escalation, stage2!.escalation]).toEqual([
      { of: first, step: 1 },
      { of: first, step: 2 },
    ]);

    fake.acknowledge(stage2!.delivery.receipt!, FAMILY, 'tablet');
    await pass(20_000);
    await eventually(() => fake.count('cancel_by_tag') === 1);
    await pass(15 * 60_000, 30_000);

    expect(messages()).toHaveLength(3);
    expect(fake.count('cancel_by_tag')).toBe(1);
    expect(fake.count('cancel')).toBe(0);
    expect(fake.calls.find((c) => c.endpoint === 'cancel_by_tag')!.fields.tag).toBe(tag);
    for (const recipient of ['ops', 'bob', 'family']) {
      const [stage] = await inbox(recipient);
      expect(stage).toMatchObject({ read: true, emergency: { acknowledgedBy: 'family' } });
    }
    expect(await inbox('carol')).toEqual([]);
    const acknowledged = events
      .filter((e) => e.type === 'acknowledged')
      .map((e) => ('notification' in e ? [e.recipient, e.notification.emergency?.acknowledgedBy] : []));
    expect(acknowledged.sort()).toEqual([
      ['bob', 'family'],
      ['family', 'family'],
      ['ops', 'family'],
    ]);
  });

  it('marking the first notification read cancels the chain: the ringing stages stop and no later step goes out', async () => {
    const { fake, app, pass, messages, inbox } = await household();
    const created = await request(app)
      .post('/notifications')
      .send({
        ...emergency,
        recipient: 'ops',
        escalate: [
          { recipient: 'bob', afterSeconds: 60 },
          { recipient: 'family', afterSeconds: 300 },
        ],
      })
      .expect(201);
    await pass(60_000);
    await eventually(() => messages().length === 2);

    await request(app).patch(`/notifications/${created.body.id}/read`).expect(200);
    await eventually(() => fake.count('cancel_by_tag') === 1);
    await pass(10 * 60_000, 30_000);

    expect(messages()).toHaveLength(2);
    expect(fake.count('cancel_by_tag')).toBe(1);
    const [stage1] = await inbox('bob');
    expect(stage1).toMatchObject({ read: true, emergency: { cancelledAt: expect.any(String) } });
    expect(await inbox('family')).toEqual([]);
  });

  it('a read-all that reads the first notification cancels the chain the same way', async () => {
    const { fake, app, pass, messages, inbox } = await household();
    await request(app)
      .post('/notifications')
      .send({
        ...emergency,
        recipient: 'ops',
        escalate: [
          { recipient: 'bob', afterSeconds: 60 },
          { recipient: 'family', afterSeconds: 300 },
        ],
      })
      .expect(201);
    await pass(60_000);
    await eventually(() => messages().length === 2);

    await request(app).post('/notifications/ops/read-all').expect(200);
    await eventually(() => fake.count('cancel_by_tag') === 1);
    await pass(10 * 60_000, 30_000);

    expect(messages()).toHaveLength(2);
    expect(fake.count('cancel_by_tag')).toBe(1);
    expect((await inbox('bob'))[0]).toMatchObject({ read: true, emergency: { cancelledAt: expect.any(String) } });
  });

  it('deleting the first notification cancels the chain: the ringing stage stops by tag and no later step goes out', async () => {
    const { fake, app, pass, messages, inbox } = await household();
    const created = await request(app)
      .post('/notifications')
      .send({
        ...emergency,
        recipient: 'ops',
        escalate: [
          { recipient: 'bob', afterSeconds: 60 },
          { recipient: 'family', afterSeconds: 300 },
        ],
      })
      .expect(201);
    await pass(60_000);
    await eventually(() => messages().length === 2);

    await request(app).delete(`/notifications/${created.body.id}`).expect(204);
    await eventually(() => fake.count('cancel_by_tag') === 1);
    await pass(10 * 60_000, 30_000);

    expect(messages()).toHaveLength(2);
    expect(fake.count('cancel_by_tag')).toBe(1);
    expect(fake.alarm(created.body.delivery.receipt)!.cancelled).toBe(true);
    const [stage1] = await inbox('bob');
    expect(stage1).toMatchObject({ read: true, emergency: { cancelledAt: expect.any(String) } });
    expect(fake.alarm(stage1!.delivery.receipt!)!.cancelled).toBe(true);
  });

  // Two and a half hours of the clock in small ticks: on PostgreSQL each tick queries the plans, more than 5 s in all.
  it('an alarm that nobody acknowledges goes through every step exactly once, and its chain goes once the alarms expired', { timeout: 30_000 }, async () => {
    const { pass, messages, app, planner } = await household();
    await request(app)
      .post('/notifications')
      .send({
        ...emergency,
        recipient: 'ops',
        escalate: [
          { recipient: 'bob', afterSeconds: 60 },
          { recipient: 'family', afterSeconds: 120 },
        ],
      })
      .expect(201);
    await pass(30 * 60_000, 10_000);
    expect(messages().map((m) => m.fields.user)).toEqual([OPS, BOB, FAMILY]);
    expect(await planner.list()).toHaveLength(1);
    // Kept until the last stage's alarm stopped at Pushover (its expire, 3600 s here), then dropped.
    await pass(92 * 60_000, 60_000);
    expect(await planner.list()).toEqual([]);
    expect(messages()).toHaveLength(3);
  });

  it('refuses escalate on another priority, with short, unordered or too many steps, an unmapped recipient, or with sendAt', async () => {
    const { app, messages, planner } = await household({ unmapped: 'refuse' });
    const post = (body: object, query = '') =>
      request(app)
        .post(`/notifications${query}`)
        .send({ ...emergency, recipient: 'ops', ...body });
    const steps = (...after: number[]) => after.map((afterSeconds, i) => ({ recipient: ['bob', 'family', 'carol'][i % 3], afterSeconds }));
    const answers = await Promise.all([
      post({ priority: 1, escalate: steps(60) }),
      post({ escalate: steps(59) }),
      post({ escalate: steps(120, 60) }),
      post({ escalate: steps(60, 60) }),
      post({ escalate: steps(60, 120, 180, 240, 300, 360) }),
      post({ escalate: [] }),
      post({ escalate: [{ recipient: 'stranger', afterSeconds: 60 }] }),
      post({ escalate: steps(60) }, '?delaySeconds=60'),
    ]);
    expect(answers.map((a) => a.status)).toEqual([400, 400, 400, 400, 400, 400, 400, 400]);
    expect(answers.map((a) => a.body.code)).toEqual([
      'VALIDATION_FAILED',
      'VALIDATION_FAILED',
      'VALIDATION_FAILED',
      'VALIDATION_FAILED',
      'VALIDATION_FAILED',
      'VALIDATION_FAILED',
      'RECIPIENT_NOT_MAPPED',
      'VALIDATION_FAILED',
    ]);
    for (const answer of answers) expect(answer.body).toEqual(expect.objectContaining({ error: expect.any(String), solution: expect.any(String) }));
    expect(messages()).toHaveLength(0);
    expect(await planner.list()).toEqual([]);
  });
});

describe('POST /hooks/{template} with a template that escalates', () => {
  it('escalates a firing priority-2 alert, and its resolve cancels the whole chain with one cancel_by_tag', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'escalation-hooks-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const templatesFile = join(dir, 'templates.yaml');
    writeFileSync(
      templatesFile,
      [
        'templates:',
        '  leak:',
        '    recipient: ops',
        "    title: '{{title}}'",
        "    message: '{{message}}'",
        '    priority: { from: severity, map: { critical: 2, warning: 0 } }',
        "    identity: '{{id}}'",
        '    resolved: { from: status, values: [resolved] }',
        '    escalate: [{ recipient: bob, afterSeconds: 60 }, { recipient: family, afterSeconds: 300 }]',
        '',
      ].join('\n'),
    );
    const { fake, app, pass, messages, inbox } = await household({ templatesFile });
    const alert = { id: 'sink', title: 'Water leak', message: 'Water under the sink', severity: 'critical' };

    const fired = await request(app)
      .post('/hooks/leak')
      .send({ ...alert, status: 'firing' });
    const warning = await request(app)
      .post('/hooks/leak')
      .send({ ...alert, id: 'cellar', severity: 'warning', status: 'firing' });
    expect([fired.status, warning.status]).toEqual([201, 201]);
    await eventually(() => messages().length === 2);
    await pass(60_000);
    await eventually(() => messages().length === 3);
    expect(messages().map((m) => [m.fields.user, m.fields.priority])).toEqual([
      [OPS, '2'],
      [OPS, '0'],
      [BOB, '2'],
    ]);

    const resolved = await request(app)
      .post('/hooks/leak')
      .send({ ...alert, status: 'resolved' });
    expect(resolved.body.cancelled).toEqual(fired.body.created);
    await eventually(() => fake.count('cancel_by_tag') === 1);
    await pass(10 * 60_000, 30_000);

    expect(messages()).toHaveLength(3);
    expect(fake.count('cancel_by_tag')).toBe(1);
    const [stage1] = await inbox('bob');
    expect(stage1).toMatchObject({ read: true, escalation: { of: fired.body.created[0], step: 1 }, emergency: { cancelledAt: expect.any(String) } });
    expect(await inbox('family')).toEqual([]);
  });

  it('escalates what the generic template receives with escalate steps (as device watches send it), priority 2 only', async () => {
    const { app, pass, messages } = await household();
    const escalate = [{ recipient: 'bob', afterSeconds: 60 }];
    const watch = { id: 'watch-garage-open-1', status: 'firing', title: 'Garage is open', message: 'Garage is open', escalate };

    const alarm = await request(app)
      .post('/hooks/generic?recipient=ops')
      .send({ ...watch, priority: 2 });
    const quiet = await request(app)
      .post('/hooks/generic?recipient=ops')
      .send({ ...watch, id: 'watch-washer-1', priority: 0 });
    const bad = await request(app)
      .post('/hooks/generic?recipient=ops')
      .send({ ...watch, id: 'watch-x', priority: 2, escalate: [{ recipient: 'bob', afterSeconds: 10 }] });
    expect([alarm.status, quiet.status, bad.status]).toEqual([201, 201, 400]);
    await eventually(() => messages().length === 2);
    await pass(60_000);
    await eventually(() => messages().length === 3);
    await pass(5 * 60_000, 30_000);

    expect(messages().map((m) => [m.fields.user, m.fields.priority])).toEqual([
      [OPS, '2'],
      [OPS, '0'],
      [BOB, '2'],
    ]);
  });
});
