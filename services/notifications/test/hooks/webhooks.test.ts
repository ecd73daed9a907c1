import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from '@homeops/test-kit';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { parseRecipientsVariable } from '../../src/adapters/pushover/recipient-map.js';
import type { NotificationRecord } from '../../src/domain/notification.js';
import { startFakePushoverApi } from '../pushover/fake-pushover-api.js';
import { startHouseholdApp } from '../pushover/household-kit.js';
import { API_TOKEN, USER_KEY } from '../pushover/pushover-test-kit.js';

// Canned webhook bodies of Alertmanager, Grafana and Uptime Kuma (as their docs give them) through the built-in
// templates, against the real Pushover adapter and a fake Pushover: what is stored, what rings, what a resolve ends.
const OPS = 'oPs000000000000000000000000001';
const fixture = (name: string) => JSON.parse(readFileSync(join(import.meta.dirname, '../fixtures/hooks', `${name}.json`), 'utf8')) as object;

let closeFake: (() => Promise<void>) | undefined;
afterEach(async () => closeFake?.());

async function household(config: Record<string, unknown> = {}) {
  const fake = await startFakePushoverApi({ token: API_TOKEN, users: { [USER_KEY]: [], [OPS]: ['phone'] } });
  closeFake = fake.close;
  const recipients = { recipients: parseRecipientsVariable(`ops=${OPS}`), unmapped: 'default' as const };
  const started = await startHouseholdApp(fake.url, { userKey: USER_KEY, recipients }, { config: { EMERGENCY_POLL_SECONDS: 60, ...config } });
  const stored = async (id: string) => (await request(started.app).get(`/notifications/single/${id}`)).body as NotificationRecord;
  return { fake, ...started, stored };
}

describe('POST /hooks/alertmanager', () => {
  it('rings a critical alert, does not ring it twice while it rings, and its resolve cancels that receipt once', async () => {
    const { fake, app, events, stored } = await household();
    const firing = await request(app).post('/hooks/alertmanager?recipient=ops').send(fixture('alertmanager-firing'));

    expect(firing.status).toBe(201);
    const [id] = firing.body.created as string[];
    // Answered once stored; delivery follows.
    await eventually(async () => (await stored(id!)).delivery.status === 'sent', 'the delivery of the alarm');
    const record = await stored(id!);
    expect(record).toMatchObject({
      recipient: 'ops',
      title: 'DiskFailing on nas:9100',
      message: 'SMART reports /dev/sda failing on nas',
      priority: 2,
      url: 'http://prometheus.lan:9090/graph?g0.expr=smartmon_device_smart_healthy+%3D%3D+0&g0.tab=1',
      delivery: { status: 'sent', receipt: expect.any(String) },
      emergency: { tags: expect.stringMatching(/^alert-[0-9a-f]{16}$/) },
    });
    expect(fake.calls.filter((c) => c.endpoint === 'messages').map((c) => c.fields)).toEqual([
      expect.objectContaining({ priority: '2', tags: record.emergency!.tags }),
    ]);

    const again = await request(app).post('/hooks/alertmanager?recipient=ops').send(fixture('alertmanager-firing'));
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ created: [], cancelled: [], alreadyRinging: 1, notYours: 0 });
    expect(fake.count('messages')).toBe(1);

    const resolved = await request(app).post('/hooks/alertmanager?recipient=ops').send(fixture('alertmanager-resolved'));
    expect(resolved.status).toBe(200);
    expect(resolved.body).toEqual({ created: [], cancelled: [id], alreadyRinging: 0, notYours: 0 });
    expect(fake.calls.filter((c) => c.endpoint === 'cancel').map((c) => c.receipt)).toEqual([record.delivery.receipt]);
    expect((await stored(id!)).emergency).toMatchObject({ cancelledAt: expect.any(String) });
    expect(events.flatMap((e) => (e.type === 'alarm-ended' ? [e.notification.id] : []))).toEqual([id]);

    await request(app).post('/hooks/alertmanager?recipient=ops').send(fixture('alertmanager-resolved')).expect(200);
    expect(fake.count('cancel')).toBe(1);
    const refiring = await request(app).post('/hooks/alertmanager?recipient=ops').send(fixture('alertmanager-firing'));
    expect(refiring.status).toBe(201);
    await eventually(() => fake.count('messages') === 2, 'the second firing after the resolve');
  });

  it('sends one notification for two identical firings arriving at once', async () => {
    const { fake, app } = await household();
    const [a, b] = await Promise.all([
      request(app).post('/hooks/alertmanager?recipient=ops').send(fixture('alertmanager-firing')),
      request(app).post('/hooks/alertmanager?recipient=ops').send(fixture('alertmanager-firing')),
    ]);
    expect([a!.status, b!.status].sort()).toEqual([200, 201]);
    await eventually(() => fake.count('messages') === 1, 'the one alarm');
    // The second firing arrives while the first is still being delivered: still nothing more.
    const third = await request(app).post('/hooks/alertmanager?recipient=ops').send(fixture('alertmanager-firing'));
    expect(third.body).toMatchObject({ created: [], alreadyRinging: 1 });
    expect(fake.count('messages')).toBe(1);
  });
});

describe('the other built-in templates', () => {
  it('maps a Grafana alert: folder in the title, the value in the message, the dashboard as the link', async () => {
    const { app, stored } = await household();
    const res = await request(app).post('/hooks/grafana?recipient=ops').send(fixture('grafana-firing'));
    expect(res.status).toBe(201);
    expect(await stored(res.body.created[0])).toMatchObject({
      title: 'FreezerWarm (Kitchen)',
      message: "The freezer is at -9 °C ([ var='B' labels={} value=-9 ])",
      priority: 1,
      url: 'http://grafana.lan:3001/d/kitchen',
      urlTitle: 'Open in Grafana',
    });
  });

  it('maps Uptime Kuma: down is high priority, up sends a quiet resolved note when asked, its test message passes', async () => {
    const { app, stored } = await household();
    const down = await request(app).post('/hooks/uptime-kuma?recipient=ops').send(fixture('uptime-kuma-down'));
    const up = await request(app).post('/hooks/uptime-kuma?recipient=ops&resolvedNote=true').send(fixture('uptime-kuma-up'));
    const test = await request(app).post('/hooks/uptime-kuma?recipient=ops').send(fixture('uptime-kuma-test'));

    expect([down.status, up.status, test.status]).toEqual([201, 201, 201]);
    expect(await stored(down.body.created[0])).toMatchObject({
      title: 'Home Assistant',
      message: '[Home Assistant] [🔴 Down] connect ECONNREFUSED 192.168.1.20:8123',
      priority: 1,
    });
    expect(await stored(up.body.created[0])).toMatchObject({ title: 'Resolved: Home Assistant', message: '[Home Assistant] [✅ Up] 200 - OK', priority: -1 });
    expect(await stored(test.body.created[0])).toMatchObject({ title: 'Uptime Kuma', message: 'Uptime Kuma Webhook Testing' });
  });

  it('takes the recipient, priority and sound from the query over the template', async () => {
    const { app, stored } = await household();
    const res = await request(app)
      .post('/hooks/generic?recipient=ops&priority=1&sound=siren')
      .send({ title: 'Backup', message: 'Backup failed', priority: -1 });
    expect(await stored(res.body.created[0])).toMatchObject({ recipient: 'ops', title: 'Backup', message: 'Backup failed', priority: 1, sound: 'siren' });
  });
});

describe('bodies a template cannot map', () => {
  it('answers 400 naming what is missing, 404 for an unknown template, and sends nothing', async () => {
    const { fake, app } = await household();
    const noMessage = await request(app).post('/hooks/generic?recipient=ops').send({ title: 'x' });
    const noAlerts = await request(app).post('/hooks/alertmanager?recipient=ops').send({ status: 'firing', alerts: 'none' });
    const noRecipient = await request(app).post('/hooks/alertmanager').send(fixture('alertmanager-firing'));
    const unknown = await request(app).post('/hooks/nagios?recipient=ops').send({});
    const array = await request(app).post('/hooks/generic?recipient=ops').send([1, 2]);

    expect(noMessage.status).toBe(400);
    expect(noMessage.body.details).toEqual([{ path: 'body', message: expect.stringContaining('gives no message through template "generic"') }]);
    expect(noAlerts.body.details).toEqual([{ path: 'body.alerts', message: expect.stringContaining('must be an array of alerts') }]);
    expect(noRecipient.body.details).toEqual([{ path: 'query.recipient', message: expect.stringContaining('template "alertmanager" names no recipient') }]);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: 'HOOK_TEMPLATE_NOT_FOUND', error: expect.stringContaining('alertmanager, grafana, uptime-kuma, generic') });
    expect(array.status).toBe(400);
    expect(fake.count('messages')).toBe(0);
  });
});
