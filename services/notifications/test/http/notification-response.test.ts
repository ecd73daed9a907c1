import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { DeliveryError } from '../../src/domain/push-provider.js';
import { NotificationSchema } from '../../src/http/response.schemas.js';
import { FakePushProvider, permanent, retryable } from '../fakes/fake-push.provider.js';
import { recordPerVariant } from '../storage/record-variants.js';
import { buildTestApp } from '../support/test-app.js';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const body = { recipient: 'ops', title: 'Disk', message: 'Disk almost full' };

/** Exactly a documented notification: every required field, of its type, and nothing the schema does not name, at any depth. */
function expectDocumented(value: unknown): void {
  const parsed = NotificationSchema.parse(value);
  // Parsing drops what the schema does not name: equal means there was nothing else.
  expect(parsed).toEqual(value);
  expect(parsed.read).toBe(parsed.readAt !== null);
}

describe('every notification the API returns is exactly the documented Notification', () => {
  it.each([
    ['sent', new FakePushProvider(), body],
    [
      'sent with an attachment',
      new FakePushProvider(),
      { ...body, attachment: { filename: 'door.png', contentType: 'image/png', data: PNG.toString('base64') } },
    ],
    ['failed', new FakePushProvider().willAnswer(permanent()), body],
    ['pending a retry', new FakePushProvider().alwaysAnswer(retryable()), body],
    ['an emergency, unknown', new FakePushProvider().willAnswer(new DeliveryError('socket hang up', true, { maybeDelivered: true })), { ...body, priority: 2 }],
    [
      'an emergency, ringing',
      new FakePushProvider().willAnswer({ request: 'req-e', receipt: 'r'.repeat(30) }),
      { ...body, priority: 2, retry: 60, tags: 'disk' },
    ],
    ['skipped', new FakePushProvider(false), body],
  ] as const)('POST /notifications answers it (%s), and GET and the list give it back so', async (_name, provider, sent) => {
    const { app } = await buildTestApp({ provider });
    const created = await request(app).post('/notifications').send(sent);
    expect(created.status).toBe(201);
    expectDocumented(created.body);
    expectDocumented((await request(app).get(`/notifications/single/${created.body.id}`)).body);
    const list = (await request(app).get('/notifications/ops')).body as unknown[];
    expect(list).toHaveLength(1);
    list.forEach(expectDocumented);
  });

  it('GET and the list answer it for every stored delivery status and alarm state (ringing, acknowledged, expired, cancelled)', async () => {
    const { app, repository } = await buildTestApp();
    const records = recordPerVariant();
    for (const record of records) await repository.insert(record);
    for (const record of records) {
      const res = await request(app).get(`/notifications/single/${record.id}`);
      expectDocumented(res.body);
      expect(res.body).toEqual(record);
    }
    const list = (await request(app).get('/notifications/alice?limit=500')).body as unknown[];
    expect(list).toHaveLength(records.length);
    list.forEach(expectDocumented);
  });

  it('PATCH read and unread answer it, and so does a resend', async () => {
    const { app } = await buildTestApp({ provider: new FakePushProvider().willAnswer(permanent()) });
    const { id } = (await request(app).post('/notifications').send(body)).body as { id: string };
    expectDocumented((await request(app).patch(`/notifications/${id}/read`)).body);
    expectDocumented((await request(app).patch(`/notifications/${id}/unread`)).body);
    const resent = await request(app).post(`/notifications/${id}/resend`);
    expect(resent.status).toBe(200);
    expect(resent.body.delivery).toMatchObject({ status: 'sent', resentAt: expect.any(String) });
    expectDocumented(resent.body);
  });

  it('refuses what no route may answer: an unknown field, a field of another status, or two ends of one alarm', () => {
    const [sent] = recordPerVariant();
    expect(NotificationSchema.parse(sent)).toEqual(sent);
    expect(NotificationSchema.parse({ ...sent, extra: 1 })).not.toEqual({ ...sent, extra: 1 });
    expect(NotificationSchema.safeParse({ ...sent, delivery: { status: 'failed', attempts: 1 } }).success).toBe(false);
    const twoEnds = { retry: 60, expire: 3600, expiredAt: '2026-11-24T10:00:00.000Z', cancelledAt: '2026-11-24T10:00:00.000Z' };
    expect(NotificationSchema.safeParse({ ...sent, priority: 2, emergency: twoEnds }).success).toBe(false);
  });
});
