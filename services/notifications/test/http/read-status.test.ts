import { ManualClock } from '@homeops/common';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { InMemoryNotificationRepository } from '../fakes/in-memory-notification.repository.js';
import { buildTestApp, type TestApp } from '../support/test-app.js';

const fixedClock = (iso: string) => new ManualClock(Date.parse(iso));

async function create(app: TestAppLike, recipient = 'ops'): Promise<string> {
  return (await request(app).post('/notifications').send({ recipient, title: 't', message: 'm' })).body.id;
}
type TestAppLike = TestApp['app'];

describe('PATCH /notifications/:id/read', () => {
  it('marks the notification read with readAt, persisted', async () => {
    const t = await buildTestApp({ clock: fixedClock('2026-01-02T03:04:05.000Z') });
    const id = await create(t.app);
    const res = await request(t.app).patch(`/notifications/${id}/read`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, read: true, readAt: '2026-01-02T03:04:05.000Z' });
    expect(await t.repository.get(id)).toMatchObject({ read: true, readAt: '2026-01-02T03:04:05.000Z' });
  });

  it('is idempotent: a second call keeps the first readAt and writes nothing', async () => {
    const clock = fixedClock('2026-01-02T00:00:00.000Z');
    const repository = new InMemoryNotificationRepository();
    const t = await buildTestApp({ repository, clock });
    const id = await create(t.app);
    await request(t.app).patch(`/notifications/${id}/read`);
    const calls = repository.calls.length;
    clock.advance(Date.parse('2026-05-05T00:00:00.000Z') - clock.now());
    const again = await request(t.app).patch(`/notifications/${id}/read`);
    expect(again.status).toBe(200);
    expect(again.body.readAt).toBe('2026-01-02T00:00:00.000Z');
    expect(repository.calls).toHaveLength(calls);
  });

  it('returns 404 for an unknown id', async () => {
    const res = await request((await buildTestApp()).app).patch('/notifications/NOPE/read');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: expect.any(String), solution: expect.any(String) });
  });
});

describe('PATCH /notifications/:id/unread', () => {
  it('marks the notification unread and clears readAt; repeating changes nothing', async () => {
    const t = await buildTestApp();
    const id = await create(t.app);
    await request(t.app).patch(`/notifications/${id}/read`);
    const res = await request(t.app).patch(`/notifications/${id}/unread`);
    expect(res.body).toMatchObject({ read: false, readAt: null });
    expect(await t.repository.get(id)).toMatchObject({ read: false, readAt: null });
    expect((await request(t.app).patch(`/notifications/${id}/unread`)).body).toMatchObject({ read: false, readAt: null });
  });

  it('returns 404 for an unknown id', async () => {
    expect((await request((await buildTestApp()).app).patch('/notifications/NOPE/unread')).status).toBe(404);
  });
});

describe('POST /notifications/:recipient/read-all', () => {
  it('marks every unread notification of that recipient read and returns how many changed', async () => {
    const t = await buildTestApp();
    const a = await create(t.app);
    await create(t.app);
    const other = await create(t.app, 'family');
    await request(t.app).patch(`/notifications/${a}/read`);
    const res = await request(t.app).post('/notifications/ops/read-all');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ updated: 1 });
    expect((await request(t.app).get('/notifications/ops')).headers['x-unread-count']).toBe('0');
    expect((await t.repository.get(other))?.read).toBe(false);
  });

  it('returns updated 0 when called again', async () => {
    const t = await buildTestApp();
    await create(t.app);
    await request(t.app).post('/notifications/ops/read-all');
    expect((await request(t.app).post('/notifications/ops/read-all')).body).toEqual({ updated: 0 });
  });
});
