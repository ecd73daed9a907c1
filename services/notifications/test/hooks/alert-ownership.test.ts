import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from '@homeops/test-kit';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { parseRecipientsVariable } from '../../src/adapters/pushover/recipient-map.js';
import { alertKey, alertTag } from '../../src/domain/alert-identity.js';
import { createNotification } from '../../src/domain/create-notification.use-case.js';
import type { NotificationRecord } from '../../src/domain/notification.js';
import { startFakePushoverApi } from '../pushover/fake-pushover-api.js';
import { startHouseholdApp } from '../pushover/household-kit.js';
import { API_TOKEN, USER_KEY } from '../pushover/pushover-test-kit.js';

// The hostile reproductions of issue 32 items 3 and 4, over HTTP with real tokens, the real Pushover adapter and a
// fake Pushover: a caller's tag cannot stand in for an alert, and only the alert's sender (or an admin) ends its alarm.
const OPS = 'oPs000000000000000000000000001';
const ADMIN_KEY = 'alert-ownership-admin-key-0123456789';
const fixture = (name: string) => JSON.parse(readFileSync(join(import.meta.dirname, '../fixtures/hooks', `${name}.json`), 'utf8')) as { alerts: object[] };
const FINGERPRINT = '5e0b4c2f1b6a7d89';

let closeFake: (() => Promise<void>) | undefined;
afterEach(async () => closeFake?.());

async function household() {
  const fake = await startFakePushoverApi({ token: API_TOKEN, users: { [USER_KEY]: [], [OPS]: ['phone'] } });
  closeFake = fake.close;
  const recipients = { recipients: parseRecipientsVariable(`ops=${OPS}`), unmapped: 'default' as const };
  const started = await startHouseholdApp(fake.url, { userKey: USER_KEY, recipients }, { config: { EMERGENCY_POLL_SECONDS: 60, API_KEY: ADMIN_KEY } });
  const { app } = started;
  const stored = async (id: string) =>
    (await request(app).get(`/notifications/single/${id}`).set('Authorization', `Bearer ${ADMIN_KEY}`)).body as NotificationRecord;
  /** A notifications:send token for ops only: what Alertmanager, device-control or a stranger on the LAN holds. */
  const sendToken = async (label: string) => {
    const res = await request(app)
      .post('/tokens')
      .set('Authorization', `Bearer ${ADMIN_KEY}`)
      .send({ label, scopes: [{ scope: 'notifications:send', recipients: ['ops'] }] })
      .expect(201);
    return { id: (res.body as { token: { id: string } }).token.id, secret: (res.body as { secret: string }).secret };
  };
  const post = (target: string, auth: string, body: object) => request(app).post(target).set('Authorization', `Bearer ${auth}`).send(body);
  const ringingSent = (id: string) => eventually(async () => (await stored(id)).delivery.status === 'sent', `the delivery of ${id}`);
  return { fake, ...started, stored, sendToken, post, ringingSent };
}

describe('POST /notifications with a tag that mimics an alert', () => {
  it('refuses a tag with the reserved alert- prefix (400, in any case and place) and a body that sets alert itself', async () => {
    const { fake, post, sendToken } = await household();
    const stranger = await sendToken('stranger');
    const mimic = alertTag({ key: alertKey('alertmanager', FINGERPRINT) });
    const base = { recipient: 'ops', title: 'x', message: 'hush', priority: 2 };

    for (const tags of [mimic, mimic.toUpperCase(), `door, ${mimic}`]) {
      const res = await post('/notifications', stranger.secret, { ...base, tags });
      expect(res.status, tags).toBe(400);
      expect(res.body).toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [{ path: 'body.tags', message: expect.stringContaining('must not start with "alert-"') }],
      });
    }
    const forged = await post('/notifications', stranger.secret, {
      ...base,
      alert: { source: 'alertmanager', key: alertKey('alertmanager', FINGERPRINT), firedBy: 'api-key' },
    });
    expect(forged.status).toBe(400);
    expect(forged.body.details).toEqual([expect.objectContaining({ path: 'body' })]);
    // Tags of its own are still fine.
    await post('/notifications', stranger.secret, { ...base, tags: 'door,alerts' }).expect(201);
    expect(fake.count('messages')).toBe(1);
  });

  it('refuses the reserved prefix in the use-case too, for callers that skip the HTTP schema (library, MQTT)', async () => {
    const { ctx, create, fake } = await household();
    const input = { recipient: 'ops', title: 'x', message: 'hush', priority: 2, tags: 'garage, Alert-0123456789abcdef' };
    await expect(createNotification(ctx, create, input)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      solution: expect.stringContaining('without the "alert-" prefix'),
    });
    expect(fake.count('messages')).toBe(0);
  });

  it('lets a real critical Alertmanager alert ring though a ringing emergency in the history carries its tag', async () => {
    const { fake, post, repository, sendToken, stored, ringingSent } = await household();
    const alertmanager = await sendToken('alertmanager');
    // As a caller could store it before this version: a ringing emergency whose only mark is the alert's tag.
    const mimicked: NotificationRecord = {
      id: 'mimicked-alert-tag',
      recipient: 'ops',
      title: 'hush',
      message: 'hush',
      priority: 2,
      emergency: { retry: 60, expire: 3600, tags: alertTag({ key: alertKey('alertmanager', FINGERPRINT) }) },
      read: false,
      readAt: null,
      createdAt: '2026-11-28T00:00:00.000Z',
      delivery: { status: 'sent', attempts: 1, receipt: 'r'.repeat(30) },
    };
    await repository.insert(mimicked);

    const firing = await post('/hooks/alertmanager?recipient=ops', alertmanager.secret, fixture('alertmanager-firing'));

    expect(firing.status).toBe(201);
    expect(firing.body).toMatchObject({ alreadyRinging: 0, created: [expect.any(String)] });
    const [id] = firing.body.created as string[];
    await ringingSent(id!);
    expect(fake.calls.filter((c) => c.endpoint === 'messages').map((c) => c.fields)).toEqual([expect.objectContaining({ priority: '2' })]);
    expect((await stored(id!)).alert).toEqual({ source: 'alertmanager', key: alertKey('alertmanager', FINGERPRINT), firedBy: `token:${alertmanager.id}` });
  });

  it('rings the real alert though another sender fired the same alert first, and that sender resolves only its own', async () => {
    const { fake, post, sendToken, stored, ringingSent } = await household();
    const [alertmanager, stranger] = [await sendToken('alertmanager'), await sendToken('stranger')];
    const first = await post('/hooks/alertmanager?recipient=ops', stranger.secret, fixture('alertmanager-firing')).expect(201);
    await ringingSent(first.body.created[0]);

    const real = await post('/hooks/alertmanager?recipient=ops', alertmanager.secret, fixture('alertmanager-firing'));
    expect(real.status).toBe(201);
    expect(real.body.alreadyRinging).toBe(0);
    await ringingSent(real.body.created[0]);
    expect(fake.count('messages')).toBe(2);

    const resolved = await post('/hooks/alertmanager?recipient=ops', stranger.secret, fixture('alertmanager-resolved')).expect(200);
    expect(resolved.body.cancelled).toEqual(first.body.created);
    expect((await stored(real.body.created[0])).emergency).not.toHaveProperty('cancelledAt');
  });
});

describe('POST /hooks/generic resolving a watch alarm', () => {
  const episode = 'watch-garage-open-3f0c2a9e-7d41-4c55-9a3b-1e2f3a4b5c6d';
  const firing = { id: episode, title: 'Garage door is open', message: 'Open for more than 10 minutes', priority: 2 };
  const resolved = { id: episode, title: 'Garage door is open', message: 'over', status: 'resolved' };

  it("refuses a send-only token's resolve of an alarm another sender fired (403): it rings on, no cancel, no note", async () => {
    const { fake, events, post, sendToken, stored, ringingSent } = await household();
    const [deviceControl, stranger] = [await sendToken('device-control'), await sendToken('stranger')];
    const fired = await post('/hooks/generic?recipient=ops', deviceControl.secret, firing).expect(201);
    const [id] = fired.body.created as string[];
    await ringingSent(id!);

    const res = await post('/hooks/generic?recipient=ops&resolvedNote=true', stranger.secret, resolved);

    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'ALERT_FIRED_BY_ANOTHER', solution: expect.stringContaining('token (or key) that fired it') });
    expect(fake.count('cancel')).toBe(0);
    expect((await stored(id!)).emergency).not.toHaveProperty('cancelledAt');
    expect(events.filter((e) => e.type === 'alarm-ended')).toEqual([]);
    expect(fake.count('messages')).toBe(1);
  });

  it('ends the alarm for the token that fired it, and for an admin whatever fired it', async () => {
    const { fake, post, sendToken, stored, ringingSent } = await household();
    const deviceControl = await sendToken('device-control');
    const fired = await post('/hooks/generic?recipient=ops', deviceControl.secret, firing).expect(201);
    await ringingSent(fired.body.created[0]);

    const own = await post('/hooks/generic?recipient=ops', deviceControl.secret, resolved);
    expect(own.status).toBe(200);
    expect(own.body).toEqual({ created: [], cancelled: fired.body.created, alreadyRinging: 0, notYours: 0 });

    const again = await post('/hooks/generic?recipient=ops', deviceControl.secret, { ...firing, id: `${episode}-2` }).expect(201);
    await ringingSent(again.body.created[0]);
    const byAdmin = await post('/hooks/generic?recipient=ops', ADMIN_KEY, { ...resolved, id: `${episode}-2` });
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body.cancelled).toEqual(again.body.created);
    expect((await stored(again.body.created[0])).emergency).toMatchObject({ cancelledAt: expect.any(String) });
    expect(fake.count('cancel')).toBe(2);
  });

  it("runs the rest of a batch with another sender's resolve in it, counting that resolve as notYours", async () => {
    const { fake, post, sendToken, stored, ringingSent } = await household();
    const [alertmanager, stranger] = [await sendToken('alertmanager'), await sendToken('stranger')];
    const fired = await post('/hooks/alertmanager?recipient=ops', alertmanager.secret, fixture('alertmanager-firing')).expect(201);
    await ringingSent(fired.body.created[0]);
    const other = { ...fixture('alertmanager-firing').alerts[0], fingerprint: 'aaaabbbbccccdddd', labels: { alertname: 'Other', severity: 'warning' } };
    const batch = { ...fixture('alertmanager-resolved'), alerts: [...fixture('alertmanager-resolved').alerts, other] };

    const res = await post('/hooks/alertmanager?recipient=ops', stranger.secret, batch);

    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ created: [expect.any(String)], cancelled: [], notYours: 1 });
    expect((await stored(fired.body.created[0])).emergency).not.toHaveProperty('cancelledAt');
    expect(fake.count('cancel')).toBe(0);
  });
});
