import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { PUSHOVER_SOUNDS } from '../../src/adapters/pushover/sounds.js';
import { FakePushProvider } from '../fakes/fake-push.provider.js';
import { InMemoryNotificationRepository } from '../fakes/in-memory-notification.repository.js';
import { buildTestApp, type TestApp } from '../support/test-app.js';

const valid = { recipient: 'ops', title: 'Disk', message: 'Disk almost full' };

async function post(body: object, app?: TestApp['app']) {
  return request(app ?? (await buildTestApp()).app)
    .post('/notifications')
    .send(body);
}

describe('POST /notifications', () => {
  it('returns 201 with the stored record, unread, delivery sent after the first attempt', async () => {
    const { app, repository, provider } = await buildTestApp();
    const res = await post({ ...valid, priority: 1, sound: 'siren', url: 'https://example.org/x', urlTitle: 'See' }, app);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      recipient: 'ops',
      title: 'Disk',
      message: 'Disk almost full',
      priority: 1,
      sound: 'siren',
      read: false,
      readAt: null,
      delivery: { status: 'sent', attempts: 1, request: 'req-1' },
    });
    expect(res.body.id).toMatch(/^[0-9A-Z]{26}$/);
    expect(res.headers.location).toBe(`/notifications/single/${res.body.id}`);
    expect(await repository.get(res.body.id)).toEqual(res.body);
    expect(provider.sent).toEqual([
      { title: 'Disk', message: 'Disk almost full', priority: 1, sound: 'siren', url: 'https://example.org/x', urlTitle: 'See', createdAt: res.body.createdAt },
    ]);
  });

  it('defaults priority to 0 and sends it as asked, not a fixed priority or sound', async () => {
    const { app, provider } = await buildTestApp();
    const res = await post(valid, app);
    expect(res.body.priority).toBe(0);
    expect(provider.sent[0]).toEqual({ title: 'Disk', message: 'Disk almost full', priority: 0, createdAt: res.body.createdAt });
  });

  it('stores the receipt Pushover returns for an emergency (priority 2) notification', async () => {
    const provider = new FakePushProvider().willAnswer({ request: 'req-e', receipt: 'rcpt-123' });
    const { app, repository } = await buildTestApp({ provider });
    const res = await post({ ...valid, priority: 2 }, app);
    expect(res.body.delivery).toMatchObject({ status: 'sent', request: 'req-e', receipt: 'rcpt-123' });
    expect((await repository.get(res.body.id))?.delivery.receipt).toBe('rcpt-123');
    expect(provider.sent[0]?.priority).toBe(2);
  });

  it('stores delivery "skipped" and calls no provider when delivery is off', async () => {
    const provider = new FakePushProvider(false);
    const { app } = await buildTestApp({ provider });
    const res = await post(valid, app);
    expect(res.status).toBe(201);
    expect(res.body.delivery).toEqual({ status: 'skipped', attempts: 0 });
    expect(provider.sent).toHaveLength(0);
  });

  it('gives every notification a distinct id', async () => {
    const { app } = await buildTestApp();
    const ids = await Promise.all(Array.from({ length: 20 }, () => post(valid, app).then((r) => r.body.id)));
    expect(new Set(ids).size).toBe(20);
  });

  it('accepts a message of exactly 1024 characters', async () => {
    expect((await post({ ...valid, message: 'm'.repeat(1024) })).status).toBe(201);
  });

  it('returns 400 when message is longer than 1024 characters', async () => {
    const res = await post({ ...valid, message: 'm'.repeat(1025) });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: expect.any(String), solution: expect.any(String) });
    expect(res.body.details).toEqual([expect.objectContaining({ path: 'body.message' })]);
  });

  it('returns 400 when message is empty or missing', async () => {
    expect((await post({ ...valid, message: '' })).status).toBe(400);
    expect((await post({ recipient: 'ops' })).status).toBe(400);
  });

  it('accepts a title of 250 characters and returns 400 for 251', async () => {
    expect((await post({ ...valid, title: 't'.repeat(250) })).status).toBe(201);
    expect((await post({ ...valid, title: 't'.repeat(251) })).status).toBe(400);
  });

  it('accepts a recipient of 1 to 256 characters and returns 400 outside', async () => {
    expect((await post({ ...valid, recipient: 'r' })).status).toBe(201);
    expect((await post({ ...valid, recipient: 'r'.repeat(256) })).status).toBe(201);
    expect((await post({ ...valid, recipient: 'r'.repeat(257) })).status).toBe(400);
    expect((await post({ ...valid, recipient: '' })).status).toBe(400);
  });

  it('accepts a url of 512 characters and returns 400 for 513', async () => {
    const url = (n: number) => `https://example.org/${'a'.repeat(n - 20)}`;
    expect(url(512)).toHaveLength(512);
    expect((await post({ ...valid, url: url(512) })).status).toBe(201);
    expect((await post({ ...valid, url: url(513) })).status).toBe(400);
  });

  it('returns 400 when url is a script, data or not a URL (links of any other scheme go to Pushover)', async () => {
    expect((await post({ ...valid, url: 'http://example.org' })).status).toBe(201);
    expect((await post({ ...valid, url: 'ftp://example.org/file' })).status).toBe(201);
    expect((await post({ ...valid, url: 'javascript:alert(1)' })).status).toBe(400);
    expect((await post({ ...valid, url: 'not a url' })).status).toBe(400);
  });

  it('accepts a urlTitle of 100 characters and returns 400 for 101', async () => {
    expect((await post({ ...valid, urlTitle: 'u'.repeat(100) })).status).toBe(201);
    expect((await post({ ...valid, urlTitle: 'u'.repeat(101) })).status).toBe(400);
  });

  it('accepts priorities -2 to 2 and returns 400 for -3, 3 and 1.5', async () => {
    for (const priority of [-2, -1, 0, 1, 2]) expect((await post({ ...valid, priority })).body.priority).toBe(priority);
    for (const priority of [-3, 3, 1.5, '1']) expect((await post({ ...valid, priority })).status).toBe(400);
  });

  it('accepts every built-in sound and returns 400 for an unknown one', async () => {
    const { app } = await buildTestApp();
    for (const sound of PUSHOVER_SOUNDS) expect((await post({ ...valid, sound }, app)).status).toBe(201);
    const res = await post({ ...valid, sound: 'kazoo' });
    expect(res.status).toBe(400);
    expect(res.body.details[0].path).toBe('body.sound');
  });

  it('accepts a positive integer ttl and returns 400 for 0, negative or fractional', async () => {
    expect((await post({ ...valid, ttl: 1 })).status).toBe(201);
    for (const ttl of [0, -5, 2.5]) expect((await post({ ...valid, ttl })).status).toBe(400);
  });

  it('passes html and device through to the provider', async () => {
    const { app, provider } = await buildTestApp();
    const res = await post({ ...valid, html: true, device: 'phone,tablet' }, app);
    expect(res.body).toMatchObject({ html: true, device: 'phone,tablet' });
    expect(provider.sent[0]).toMatchObject({ html: true, device: 'phone,tablet' });
    expect((await post({ ...valid, html: 'yes' })).status).toBe(400);
  });

  it('returns 400 for an unknown field rather than ignoring a typo', async () => {
    expect((await post({ ...valid, priorty: 2 })).status).toBe(400);
  });

  it('returns 415 for a body that is neither JSON nor multipart', async () => {
    const res = await request((await buildTestApp()).app)
      .post('/notifications')
      .set('Content-Type', 'text/plain')
      .send('recipient=ops');
    expect(res.status).toBe(415);
    expect(res.body.solution).toMatch(/multipart\/form-data/);
  });

  it('returns 400 with the common body for malformed JSON', async () => {
    const res = await request((await buildTestApp()).app)
      .post('/notifications')
      .set('Content-Type', 'application/json')
      .send('{"recipient":');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Malformed JSON body', solution: expect.any(String), code: 'MALFORMED_JSON' });
  });

  it('returns 503 and stores nothing when the history cannot be written', async () => {
    const repository = new InMemoryNotificationRepository();
    const { app, provider } = await buildTestApp({ repository });
    repository.failWrites = true;
    const res = await post(valid, app);
    expect(res.status).toBe(503);
    expect(provider.sent).toHaveLength(0);
  });
});
