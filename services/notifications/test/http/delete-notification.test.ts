import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { PNG } from '../support/files.js';
import { buildTestApp } from '../support/test-app.js';

describe('DELETE /notifications/:id', () => {
  it('returns 204 and removes the record and its attachment from storage', async () => {
    const t = await buildTestApp();
    const created = await request(t.app)
      .post('/notifications')
      .send({ recipient: 'ops', message: 'm', attachment: { filename: 'a.png', contentType: 'image/png', data: PNG.toString('base64') } });
    const id = created.body.id as string;
    expect(await t.attachments.read(id)).toBeDefined();
    const res = await request(t.app).delete(`/notifications/${id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(await t.repository.get(id)).toBeUndefined();
    expect(await t.attachments.read(id)).toBeUndefined();
    expect((await request(t.app).get(`/notifications/single/${id}`)).status).toBe(404);
    expect((await request(t.app).get(`/notifications/single/${id}/attachment`)).status).toBe(404);
  });

  it('returns 404 for an unknown id, and for a second delete', async () => {
    const t = await buildTestApp();
    const id = (await request(t.app).post('/notifications').send({ recipient: 'ops', message: 'm' })).body.id;
    await request(t.app).delete(`/notifications/${id}`);
    const res = await request(t.app).delete(`/notifications/${id}`);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: expect.any(String), solution: expect.any(String) });
  });
});
