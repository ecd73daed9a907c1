import { existsSync, readdirSync } from 'node:fs';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { attachmentDirOf } from '../../src/build-storage.js';
import { EXECUTABLE, GIF, JPEG, PDF, PNG, pngOfSize, TEXT, WEBP } from '../support/files.js';
import { buildTestApp } from '../support/test-app.js';

const valid = { recipient: 'ops', title: 'Camera', message: 'Motion at the door' };
const MiB5 = 5 * 1024 * 1024;
const asJson = (data: Buffer, contentType: string, filename = 'file.bin') => ({ filename, contentType, data: data.toString('base64') });

describe('POST /notifications with an attachment', () => {
  it.each([
    ['image/png', PNG],
    ['image/jpeg', JPEG],
    ['image/gif', GIF],
    ['image/webp', WEBP],
    ['application/pdf', PDF],
    ['text/plain', TEXT],
  ])('stores a %s attachment sent as base64 JSON', async (contentType, data) => {
    const { app, attachments } = await buildTestApp();
    const res = await request(app)
      .post('/notifications')
      .send({ ...valid, attachment: asJson(data, contentType, 'f') });
    expect(res.status).toBe(201);
    expect(res.body.attachment).toEqual({ filename: 'f', contentType, size: data.length });
    expect(await attachments.read(res.body.id)).toEqual(data);
  });

  it('forwards images to the provider and keeps documents out of the push', async () => {
    const { app, provider } = await buildTestApp();
    await request(app)
      .post('/notifications')
      .send({ ...valid, attachment: asJson(PNG, 'image/png', 'door.png') });
    await request(app)
      .post('/notifications')
      .send({ ...valid, attachment: asJson(PDF, 'application/pdf', 'r.pdf') });
    expect(provider.sent[0]?.attachment).toEqual({ filename: 'door.png', contentType: 'image/png', data: PNG });
    expect(provider.sent[1]?.attachment).toBeUndefined();
  });

  it('returns 400 when the declared type does not match the bytes', async () => {
    // The real store: no attachment file may be left on disk.
    const { app, storagePath, repository } = await buildTestApp({ repository: 'real' });
    const res = await request(app)
      .post('/notifications')
      .send({ ...valid, attachment: asJson(PDF, 'image/png') });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/declared as image\/png but its bytes are application\/pdf/);
    expect(res.body.details).toEqual([expect.objectContaining({ path: 'body.attachment.contentType' })]);
    const dir = attachmentDirOf(storagePath!);
    expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
    expect((await repository.stats()).records).toBe(0);
  });

  it('returns 415 for bytes that are no supported image or document', async () => {
    const res = await request((await buildTestApp()).app)
      .post('/notifications')
      .send({ ...valid, attachment: asJson(EXECUTABLE, 'application/octet-stream') });
    expect(res.status).toBe(415);
  });

  it('returns 400 when data is not base64', async () => {
    const res = await request((await buildTestApp()).app)
      .post('/notifications')
      .send({ ...valid, attachment: { filename: 'a', contentType: 'image/png', data: '***' } });
    expect(res.status).toBe(400);
  });

  it('accepts exactly 5 MiB and returns 413 for one byte more', async () => {
    const { app } = await buildTestApp();
    const ok = await request(app)
      .post('/notifications')
      .send({ ...valid, attachment: asJson(pngOfSize(MiB5), 'image/png') });
    expect(ok.status).toBe(201);
    const tooBig = await request(app)
      .post('/notifications')
      .send({ ...valid, attachment: asJson(pngOfSize(MiB5 + 1), 'image/png') });
    expect(tooBig.status).toBe(413);
  });

  it('keeps the small JSON limit on other routes', async () => {
    const res = await request((await buildTestApp()).app)
      .post('/notifications/ops/read-all')
      .send({ pad: 'x'.repeat(200_000) });
    expect(res.status).toBe(413);
  });

  it('stores a file sent as multipart/form-data with typed fields', async () => {
    const { app, attachments, provider } = await buildTestApp();
    const res = await request(app)
      .post('/notifications')
      .field('recipient', 'ops')
      .field('title', 'Camera')
      .field('message', 'Motion')
      .field('priority', '1')
      .field('html', 'true')
      .attach('attachment', JPEG, { filename: 'door.jpg', contentType: 'image/jpeg' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ priority: 1, html: true, attachment: { filename: 'door.jpg', contentType: 'image/jpeg', size: JPEG.length } });
    expect(await attachments.read(res.body.id)).toEqual(JPEG);
    expect(provider.sent[0]?.attachment?.data).toEqual(JPEG);
  });

  it('returns 413 for a multipart file over 5 MiB', async () => {
    const res = await request((await buildTestApp()).app)
      .post('/notifications')
      .field('recipient', 'ops')
      .field('message', 'Motion')
      .attach('file', pngOfSize(MiB5 + 1), { filename: 'big.png', contentType: 'image/png' });
    expect(res.status).toBe(413);
  });

  it('returns 400 for a multipart file whose declared type does not match its bytes', async () => {
    const res = await request((await buildTestApp()).app)
      .post('/notifications')
      .field('recipient', 'ops')
      .field('message', 'Motion')
      .attach('file', TEXT, { filename: 'x.png', contentType: 'image/png' });
    expect(res.status).toBe(400);
  });

  it('returns 400, and keeps running, for a multipart body cut off in the middle of the file', async () => {
    const { app } = await buildTestApp();
    const truncated =
      '--X\r\nContent-Disposition: form-data; name="recipient"\r\n\r\nops\r\n--X\r\n' +
      'Content-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n\x89PNG';
    const res = await request(app).post('/notifications').set('Content-Type', 'multipart/form-data; boundary=X').send(truncated);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Malformed multipart body');
    expect((await request(app).get('/health')).status).toBe(200);
  });

  it('validates multipart fields with the same limits', async () => {
    const res = await request((await buildTestApp()).app)
      .post('/notifications')
      .field('recipient', 'ops')
      .field('message', 'm'.repeat(1025));
    expect(res.status).toBe(400);
  });
});

describe('GET /notifications/single/:id/attachment', () => {
  it('downloads the file with its type and a safe Content-Disposition', async () => {
    const { app } = await buildTestApp();
    const created = await request(app)
      .post('/notifications')
      .send({ ...valid, attachment: asJson(PDF, 'application/pdf', '../../etc/"report"\r\n.pdf') });
    expect(created.body.attachment.filename).toBe('report.pdf');
    const res = await request(app)
      .get(`/notifications/single/${created.body.id}/attachment`)
      .buffer(true)
      .parse((r, cb) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => cb(null, Buffer.concat(chunks)));
      });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toBe('attachment; filename=report.pdf');
    expect(res.body).toEqual(PDF);
  });

  it.each([
    ['a bidi override and another extension', '\u202Etxt.bat', PNG, 'image/png', 'txt.bat', 'txt.bat.png'],
    ['zero-width characters', 'do\u200Bor\u200D.png\uFEFF', PNG, 'image/png', 'door.png', 'door.png'],
    ['no extension', 'report', PDF, 'application/pdf', 'report', 'report.pdf'],
    ['an extension of its type', 'door.JPEG', JPEG, 'image/jpeg', 'door.JPEG', 'door.JPEG'],
    ['an executable extension on text', 'run.cmd', TEXT, 'text/plain', 'run.cmd', 'run.cmd.txt'],
  ])(
    'offers a name with %s without invisible characters and with an extension of its checked type',
    async (_what, filename, data, contentType, stored, offered) => {
      const { app } = await buildTestApp();
      const created = await request(app)
        .post('/notifications')
        .send({ ...valid, attachment: asJson(data, contentType, filename) });

      const res = await request(app).get(`/notifications/single/${created.body.id}/attachment`);

      expect(created.body.attachment.filename).toBe(stored);
      expect(res.status).toBe(200);
      expect(res.headers['content-disposition']).toBe(`attachment; filename=${offered}`);
    },
  );

  it('returns 404 ATTACHMENT_NOT_FOUND for a notification without attachment', async () => {
    const { app } = await buildTestApp();
    const created = await request(app).post('/notifications').send(valid);
    const res = await request(app).get(`/notifications/single/${created.body.id}/attachment`);
    expect(res.status).toBe(404);
    expect(res.body.error).toMatch(/no attachment/);
  });

  it('returns 404 for an unknown id', async () => {
    const res = await request((await buildTestApp()).app).get('/notifications/single/NOPE/attachment');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'No notification with id NOPE', solution: expect.any(String), code: 'NOTIFICATION_NOT_FOUND' });
  });
});
