import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../support/test-app.js';

describe('GET /recipients', () => {
  it('lists every recipient with a history, by name, with total and unread counts that follow reads and deletes', async () => {
    const t = await buildTestApp();
    const ids: string[] = [];
    for (const recipient of ['zoe', 'ops', 'ops', 'ann']) {
      ids.push((await request(t.app).post('/notifications').send({ recipient, message: 'm' })).body.id);
    }
    expect((await request(t.app).get('/recipients')).body).toEqual([
      { recipient: 'ann', total: 1, unread: 1 },
      { recipient: 'ops', total: 2, unread: 2 },
      { recipient: 'zoe', total: 1, unread: 1 },
    ]);

    await request(t.app).patch(`/notifications/${ids[1]}/read`);
    await request(t.app).delete(`/notifications/${ids[0]}`);

    expect((await request(t.app).get('/recipients')).body).toEqual([
      { recipient: 'ann', total: 1, unread: 1 },
      { recipient: 'ops', total: 2, unread: 1 },
    ]);
  });

  it('answers an empty list for an empty history', async () => {
    expect((await request((await buildTestApp()).app).get('/recipients')).body).toEqual([]);
  });
});
