import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually, openRawStream } from '@homeops/test-kit';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp } from '../support/test-app.js';

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

describe('POST /notifications recipient names', () => {
  it.each([
    ['a bidi override', 'ops\u202Eevil'],
    ['a zero-width space', 'o\u200Bps'],
    ['a zero-width joiner', 'o\u200Dps'],
    ['a byte order mark', '\uFEFFops'],
    ['a line feed', 'ops\n'],
    ['a tab', 'o\tps'],
    ['an escape', 'ops\u001b[31m'],
    ['a C1 control', 'ops\u0085'],
    ['a line separator', 'ops\u2028'],
    ['a dot segment', '..'],
  ])('refuses a name with %s: 400 VALIDATION_FAILED naming body.recipient, nothing stored', async (_what, recipient) => {
    const { app, repository } = await buildTestApp();

    const res = await request(app).post('/notifications').send({ recipient, message: 'm' });

    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [expect.objectContaining({ path: 'body.recipient', message: expect.stringMatching(/printable/) })],
    });
    expect((await repository.stats()).records).toBe(0);
  });

  it('accepts printable names in any script, with spaces and punctuation', async () => {
    const { app } = await buildTestApp();
    for (const recipient of ['Zoë Müller', '家族', 'ops-team_2', 'a.b', 'אבא', '🏠 home']) {
      expect((await request(app).post('/notifications').send({ recipient, message: 'm' })).status, recipient).toBe(201);
    }
  });
});

describe('recipients named like a route segment', () => {
  it.each(['single', 'stream', 'read-all', 'read', 'unread', 'resend', 'attachment', 'recipients'])(
    'a recipient named %s is created, listed and streamed',
    { timeout: 10_000 },
    async (recipient) => {
      const t = await buildTestApp();
      server = t.app.listen(0, '127.0.0.1');
      await new Promise((resolve) => server!.once('listening', resolve));
      const port = (server.address() as AddressInfo).port;
      const stream = await openRawStream(port, `/notifications/${recipient}/stream`);
      await eventually(() => t.hub.size === 1);

      const created = await request(t.app).post('/notifications').send({ recipient, message: 'for you' });
      const list = await request(t.app).get(`/notifications/${recipient}`);
      await stream.waitFor(`"id":"${created.body.id}"`);
      stream.socket.destroy();

      expect(created.status).toBe(201);
      expect(list.status).toBe(200);
      expect(list.body.map((n: { id: string }) => n.id)).toEqual([created.body.id]);
      expect(stream.text()).toMatch(/^HTTP\/1\.1 200 [\s\S]*content-type: text\/event-stream/i);
      expect(stream.text()).toContain('event: created');
    },
  );
});
