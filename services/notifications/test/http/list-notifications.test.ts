import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../support/test-app.js';

async function seed(t: TestApp, recipient: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await request(t.app)
      .post('/notifications')
      .send({ recipient, title: `#${i}`, message: `message ${i}` });
    ids.push(res.body.id);
  }
  return ids;
}

describe('GET /notifications/:recipient', () => {
  it('lists only that recipient, newest first, with total and unread counts', async () => {
    const t = await buildTestApp();
    const ids = await seed(t, 'ops', 3);
    await seed(t, 'family', 2);
    await request(t.app).patch(`/notifications/${ids[0]}/read`);
    const res = await request(t.app).get('/notifications/ops');
    expect(res.status).toBe(200);
    expect(res.body.map((n: { id: string }) => n.id)).toEqual([...ids].reverse());
    expect(res.headers['x-total-count']).toBe('3');
    expect(res.headers['x-unread-count']).toBe('2');
    expect(res.headers.link).toBeUndefined();
  });

  it('returns an empty array with zero counts for an unknown recipient', async () => {
    const res = await request((await buildTestApp()).app).get('/notifications/nobody');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
    expect(res.headers['x-total-count']).toBe('0');
  });

  it('filters unread=true', async () => {
    const t = await buildTestApp();
    const ids = await seed(t, 'ops', 3);
    await request(t.app).patch(`/notifications/${ids[1]}/read`);
    const res = await request(t.app).get('/notifications/ops?unread=true');
    expect(res.body.map((n: { id: string }) => n.id)).toEqual([ids[2], ids[0]]);
  });

  it('pages with limit and a before cursor, linking to the next page until the last', async () => {
    const t = await buildTestApp();
    const ids = await seed(t, 'ops', 5);
    const first = await request(t.app).get('/notifications/ops?limit=2');
    expect(first.body.map((n: { id: string }) => n.id)).toEqual([ids[4], ids[3]]);
    expect(first.headers.link).toBe(`</notifications/ops?limit=2&before=${ids[3]}>; rel="next"`);
    const next = /<([^>]+)>/.exec(first.headers.link as string)![1]!;
    const second = await request(t.app).get(next);
    expect(second.body.map((n: { id: string }) => n.id)).toEqual([ids[2], ids[1]]);
    const third = await request(t.app).get(`/notifications/ops?limit=2&before=${ids[1]}`);
    expect(third.body.map((n: { id: string }) => n.id)).toEqual([ids[0]]);
    expect(third.headers.link).toBeUndefined();
    expect(third.headers['x-total-count']).toBe('5');
  });

  it('keeps unread=true in the next link', async () => {
    const t = await buildTestApp();
    await seed(t, 'ops', 3);
    const res = await request(t.app).get('/notifications/ops?unread=true&limit=1');
    expect(res.headers.link).toMatch(/^<\/notifications\/ops\?unread=true&limit=1&before=\w+>; rel="next"$/);
  });

  it('encodes recipients with special characters in the link', async () => {
    const t = await buildTestApp();
    await seed(t, 'a b/c', 2);
    const res = await request(t.app).get(`/notifications/${encodeURIComponent('a b/c')}?limit=1`);
    expect(res.body).toHaveLength(1);
    expect(res.headers.link).toMatch(/^<\/notifications\/a%20b%2Fc\?limit=1&before=/);
  });

  it('defaults the limit to 50 and accepts 500', async () => {
    const t = await buildTestApp();
    await seed(t, 'ops', 51);
    expect((await request(t.app).get('/notifications/ops')).body).toHaveLength(50);
    expect((await request(t.app).get('/notifications/ops?limit=500')).body).toHaveLength(51);
  });

  it('returns 400 for limit 0, 501 or not a number, and for unread=maybe', async () => {
    const { app } = await buildTestApp();
    for (const q of ['limit=0', 'limit=501', 'limit=ten', 'unread=maybe']) {
      expect((await request(app).get(`/notifications/ops?${q}`)).status).toBe(400);
    }
  });

  it('returns 404 for a cursor that is unknown or belongs to another recipient', async () => {
    const t = await buildTestApp();
    const [other] = await seed(t, 'family', 1);
    expect((await request(t.app).get('/notifications/ops?before=UNKNOWN')).status).toBe(404);
    expect((await request(t.app).get(`/notifications/ops?before=${other}`)).status).toBe(404);
  });
});

describe('GET /notifications/single/:id', () => {
  it('returns the notification', async () => {
    const t = await buildTestApp();
    const [id] = await seed(t, 'ops', 1);
    const res = await request(t.app).get(`/notifications/single/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, recipient: 'ops', title: '#0', read: false });
  });

  it('returns 404 with the common error body for an unknown id', async () => {
    const res = await request((await buildTestApp()).app).get('/notifications/single/01UNKNOWN');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'No notification with id 01UNKNOWN', solution: expect.any(String), code: 'NOTIFICATION_NOT_FOUND' });
  });
});
