import { sendRaw } from '@homeops/test-kit';
import { describe, expect, it } from 'vitest';
import { FakePushProvider, permanent } from '../fakes/fake-push.provider.js';
import { PNG } from '../support/files.js';
import { buildKeyedApp, issueToken, send, sendAsAdmin, storeNotification, type KeyedApp } from './access-kit.js';

const ALICE_READS = [{ scope: 'notifications:read' as const, recipients: ['alice'] }];
const ALICE_SENDS = [{ scope: 'notifications:send' as const, recipients: ['alice'] }];

/** The answers to a notification of another inbox, by route, given its id. */
const STORED_ROUTES: Array<[name: string, method: string, target: (id: string) => string, scopes: typeof ALICE_READS | typeof ALICE_SENDS]> = [
  ['GET single', 'GET', (id) => `/notifications/single/${id}`, ALICE_READS],
  ['GET attachment', 'GET', (id) => `/notifications/single/${id}/attachment`, ALICE_READS],
  ['PATCH read', 'PATCH', (id) => `/notifications/${id}/read`, ALICE_READS],
  ['PATCH unread', 'PATCH', (id) => `/notifications/${id}/unread`, ALICE_READS],
  ['DELETE', 'DELETE', (id) => `/notifications/${id}`, ALICE_READS],
  ['POST resend', 'POST', (id) => `/notifications/${id}/resend`, ALICE_SENDS],
];

const withFile = { attachment: { filename: 'p.png', contentType: 'image/png', data: PNG.toString('base64') } };

const stored = (t: KeyedApp, id: string) => t.repository.get(id);

describe('a token limited to alice, on a notification of bob', () => {
  it.each(STORED_ROUTES)('%s answers byte for byte as for an id nobody stored, and changes nothing', async (_name, method, target, scopes) => {
    const t = await buildKeyedApp({ provider: new FakePushProvider().alwaysAnswer(permanent()) });
    const token = await issueToken(t.port, scopes);
    const bobs = await storeNotification(t.port, 'bob', withFile);
    const before = await stored(t, bobs);
    const sent = t.provider.sent.length;

    const foreign = await send(t.port, { method, target: target(bobs), auth: token.secret });
    await sendAsAdmin(t.port, { method: 'DELETE', target: `/notifications/${bobs}` });
    const unknown = await send(t.port, { method, target: target(bobs), auth: token.secret });

    expect(foreign.status).toBe(404);
    expect(foreign.json).toMatchObject({ code: 'NOTIFICATION_NOT_FOUND' });
    expect(foreign.body.toString('utf8')).toBe(unknown.body.toString('utf8'));
    expect(foreign.headers['content-type']).toBe(unknown.headers['content-type']);
    expect(t.provider.sent.length).toBe(sent);
    expect(before).toMatchObject({ recipient: 'bob', read: false });
  });

  it.each(STORED_ROUTES)("%s works on alice's own notification", async (_name, method, target, scopes) => {
    const t = await buildKeyedApp({ provider: new FakePushProvider().alwaysAnswer(permanent()) });
    const token = await issueToken(t.port, scopes);
    const alices = await storeNotification(t.port, 'alice', withFile);

    const res = await send(t.port, { method, target: target(alices), auth: token.secret });

    expect(res.status).toBeGreaterThanOrEqual(200);
    expect(res.status).toBeLessThan(300);
  });

  it("leaves bob's notification as it was after a read, an unread, a delete and a resend were refused", async () => {
    const t = await buildKeyedApp({ provider: new FakePushProvider().alwaysAnswer(permanent()) });
    const reader = await issueToken(t.port, ALICE_READS);
    const sender = await issueToken(t.port, ALICE_SENDS);
    const bobs = await storeNotification(t.port, 'bob', withFile);
    await sendAsAdmin(t.port, { method: 'PATCH', target: `/notifications/${bobs}/read` });
    const before = await stored(t, bobs);
    const sent = t.provider.sent.length;

    expect((await send(t.port, { method: 'PATCH', target: `/notifications/${bobs}/unread`, auth: reader.secret })).status).toBe(404);
    expect((await send(t.port, { method: 'DELETE', target: `/notifications/${bobs}`, auth: reader.secret })).status).toBe(404);
    expect((await send(t.port, { method: 'POST', target: `/notifications/${bobs}/resend`, auth: sender.secret })).status).toBe(404);

    expect(await stored(t, bobs)).toEqual(before);
    expect(await t.attachments.read(bobs)).toEqual(PNG);
    expect(t.provider.sent.length).toBe(sent);
  });
});

describe('a token limited to alice, naming bob', () => {
  it('POST /notifications for bob answers 403 naming notifications:send, stores and sends nothing', async () => {
    const t = await buildKeyedApp();
    const token = await issueToken(t.port, ALICE_SENDS);

    const res = await send(t.port, { method: 'POST', target: '/notifications', auth: token.secret, body: { recipient: 'bob', message: 'not yours' } });

    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ code: 'SCOPE_MISSING', error: 'This token lacks the notifications:send scope for recipient "bob"' });
    expect((await t.repository.stats()).records).toBe(0);
    expect(t.provider.sent).toEqual([]);
  });

  it('POST /notifications for alice escalating to bob is refused the same way: nothing stored or sent', async () => {
    const t = await buildKeyedApp();
    const token = await issueToken(t.port, ALICE_SENDS);
    const body = { recipient: 'alice', message: 'leak', priority: 2, escalate: [{ recipient: 'bob', afterSeconds: 60 }] };

    const res = await send(t.port, { method: 'POST', target: '/notifications', auth: token.secret, body });

    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ code: 'SCOPE_MISSING', error: 'This token lacks the notifications:send scope for recipient "bob"' });
    expect((await t.repository.stats()).records).toBe(0);
    expect(t.provider.sent).toEqual([]);
  });

  it('a multipart create for bob is refused the same way', async () => {
    const t = await buildKeyedApp();
    const token = await issueToken(t.port, ALICE_SENDS);
    const boundary = 'access-test-boundary';
    const body = [`--${boundary}`, 'Content-Disposition: form-data; name="recipient"', '', 'bob', `--${boundary}`];
    body.push('Content-Disposition: form-data; name="message"', '', 'not yours', `--${boundary}--`, '');

    const res = await sendRaw(t.port, {
      method: 'POST',
      target: '/notifications',
      headers: [
        ['Authorization', `Bearer ${token.secret}`],
        ['Content-Type', `multipart/form-data; boundary=${boundary}`],
      ],
      body: body.join('\r\n'),
    });

    expect(res.status).toBe(403);
    expect(JSON.parse(res.body.toString('utf8'))).toMatchObject({ code: 'SCOPE_MISSING' });
    expect((await t.repository.stats()).records).toBe(0);
  });

  it("GET /notifications/bob, its read-all and its stream answer 403; bob's notifications stay unread", async () => {
    const t = await buildKeyedApp();
    const token = await issueToken(t.port, ALICE_READS);
    const bobs = await storeNotification(t.port, 'bob');

    for (const [method, target] of [
      ['GET', '/notifications/bob'],
      ['POST', '/notifications/bob/read-all'],
      ['GET', '/notifications/bob/stream'],
    ] as const) {
      const res = await send(t.port, { method, target, auth: token.secret });
      expect(res.status, `${method} ${target}`).toBe(403);
      expect(res.json, `${method} ${target}`).toMatchObject({ code: 'SCOPE_MISSING', error: expect.stringContaining('notifications:read') });
    }
    expect(await stored(t, bobs)).toMatchObject({ read: false });
    expect(t.hub.size).toBe(0);
  });

  it("a cursor of bob's does not page alice's list (as for any cursor of another recipient)", async () => {
    const t = await buildKeyedApp();
    const token = await issueToken(t.port, ALICE_READS);
    await storeNotification(t.port, 'alice');
    const bobs = await storeNotification(t.port, 'bob');

    const res = await send(t.port, { method: 'GET', target: `/notifications/alice?before=${bobs}`, auth: token.secret });

    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ code: 'NOTIFICATION_NOT_FOUND' });
  });
});

describe('GET /recipients with a limited token', () => {
  it('lists only the recipients the token may read; the key lists all', async () => {
    const t = await buildKeyedApp();
    for (const recipient of ['alice', 'bob', 'carol']) await storeNotification(t.port, recipient);
    const alice = await issueToken(t.port, ALICE_READS);
    const aliceAndCarol = await issueToken(t.port, [{ scope: 'notifications:read', recipients: ['alice', 'carol', 'dave'] }]);

    const names = async (auth: string) =>
      ((await send(t.port, { method: 'GET', target: '/recipients', auth })).json as Array<{ recipient: string }>).map((r) => r.recipient);

    expect(await names(alice.secret)).toEqual(['alice']);
    expect(await names(aliceAndCarol.secret)).toEqual(['alice', 'carol']);
    expect(await sendAsAdmin(t.port, { method: 'GET', target: '/recipients' })).toEqual([
      expect.objectContaining({ recipient: 'alice' }),
      expect.objectContaining({ recipient: 'bob' }),
      expect.objectContaining({ recipient: 'carol' }),
    ]);
  });
});
