import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../support/test-app.js';

const base = { recipient: 'ops', title: 'Door', message: 'Front door opened' };

describe('POST /notifications: text and links as Pushover takes them', () => {
  it.each([
    ['a lone high surrogate in message', { message: 'broken \ud83d text' }, 'body.message'],
    ['a lone low surrogate in title', { title: '\ude00 title' }, 'body.title'],
    ['a NUL in urlTitle', { url: 'https://example.com', urlTitle: 'a\u0000b' }, 'body.urlTitle'],
    ['a noncharacter in recipient', { recipient: 'ops\uffff' }, 'body.recipient'],
  ])('answers 400 naming the field for %s, and stores nothing', async (_what, fields, path) => {
    const t = await buildTestApp();

    const res = await request(t.app)
      .post('/notifications')
      .send({ ...base, ...fields });

    expect(res.status).toBe(400);
    expect(res.body.details).toContainEqual({ path, message: 'must be valid Unicode text (no lone surrogate, NUL or noncharacter)' });
    expect(await t.repository.recipients()).toEqual([]);
  });

  it('keeps emoji and other well-formed text whole', async () => {
    const res = await request((await buildTestApp()).app)
      .post('/notifications')
      .send({ ...base, message: 'Pizza 🍕 ready — 漢字' });

    expect(res.status).toBe(201);
    expect(res.body.message).toBe('Pizza 🍕 ready — 漢字');
  });

  it.each(['https://example.com/cam', 'tel:+491701234567', 'sms:+491701234567', 'mailto:ops@example.com', 'homeassistant://navigate/lovelace'])(
    'accepts %s as url',
    async (url) => {
      const res = await request((await buildTestApp()).app)
        .post('/notifications')
        .send({ ...base, url });

      expect(res.status).toBe(201);
      expect(res.body.url).toBe(url);
    },
  );

  it.each(['javascript:alert(1)', 'JavaScript:alert(1)', 'data:text/html,<b>x</b>', 'vbscript:msgbox', 'not a url'])('refuses %s as url', async (url) => {
    const res = await request((await buildTestApp()).app)
      .post('/notifications')
      .send({ ...base, url });

    expect(res.status).toBe(400);
    expect(res.body.details[0].path).toBe('body.url');
  });

  it('stores monospace, and refuses it together with html', async () => {
    const t = await buildTestApp();

    const mono = await request(t.app)
      .post('/notifications')
      .send({ ...base, monospace: true });
    const both = await request(t.app)
      .post('/notifications')
      .send({ ...base, monospace: true, html: true });

    expect(mono.status).toBe(201);
    expect(mono.body.monospace).toBe(true);
    expect(both.status).toBe(400);
    expect(both.body.details).toEqual([{ path: 'body.monospace', message: 'Pushover shows a message either as HTML or in monospace, not both' }]);
  });
});
