import { ManualClock } from '@homeops/common';
import { eventually } from '@homeops/test-kit';
import { describe, expect, it } from 'vitest';
import { subscribeEvents } from '../support/sse-subscribe.js';
import { buildKeyedApp, issueToken, send, sendAsAdmin, type IssuedToken, type KeyedApp } from './access-kit.js';

const READS_ALICE = [{ scope: 'notifications:read' as const, recipients: ['alice'] }];

/** Both kinds of stream open with the token; resolves once the service holds them. */
async function openStreams(t: KeyedApp, token: IssuedToken) {
  const headers = { Authorization: `Bearer ${token.secret}` };
  const streams = await Promise.all(['/events', '/notifications/alice/stream'].map((path) => subscribeEvents(t.port, path, headers)));
  const closed = streams.map(() => false);
  streams.forEach(({ res }, i) => res.on('close', () => (closed[i] = true)));
  await eventually(() => t.hub.size === 2, 'both streams to open');
  expect(streams.map(({ res }) => res.statusCode)).toEqual([200, 200]);
  return {
    /** Resolves once the client saw both end, failing after a second. */
    ended: () => eventually(() => closed.every(Boolean), { what: 'both streams to end', timeoutMs: 1_000 }),
  };
}

/** What the token gets now: the status of a request and of a new stream. */
async function answersTo(t: KeyedApp, secret: string) {
  const request = await send(t.port, { method: 'GET', target: '/notifications/alice', auth: secret });
  const stream = await send(t.port, { method: 'GET', target: '/events', auth: secret });
  return { request: request.status, code: (request.json as { code?: string }).code, stream: stream.status };
}

const REFUSED = { request: 401, code: 'UNAUTHORIZED', stream: 401 };

describe('a token that stops being valid, with streams open', () => {
  it('revoked: its streams end as it is revoked and its next request is 401', async () => {
    const t = await buildKeyedApp();
    const token = await issueToken(t.port, READS_ALICE);
    const streams = await openStreams(t, token);

    await sendAsAdmin(t.port, { method: 'DELETE', target: `/tokens/${token.id}` });

    // The revoke itself ended them, before it answered: no sweep later.
    expect(t.hub.size).toBe(0);
    await streams.ended();
    expect(await answersTo(t, token.secret)).toEqual(REFUSED);
    expect(t.hub.size).toBe(0);
  });

  it('rotated: the streams of the old secret end as it rotates, the old secret is 401, the new one works', async () => {
    const t = await buildKeyedApp();
    const token = await issueToken(t.port, READS_ALICE);
    const streams = await openStreams(t, token);

    const { secret } = await sendAsAdmin<{ secret: string }>(t.port, { method: 'POST', target: `/tokens/${token.id}/rotate` });

    expect(t.hub.size).toBe(0);
    await streams.ended();
    expect(await answersTo(t, token.secret)).toEqual(REFUSED);
    expect((await send(t.port, { method: 'GET', target: '/notifications/alice', auth: secret })).status).toBe(200);
  });

  it('expired: its streams end when the clock passes expiresAt, and its next request is 401', async () => {
    const clock = new ManualClock();
    const t = await buildKeyedApp({ clock });
    const token = await issueToken(t.port, READS_ALICE, { expiresAt: new Date(clock.now() + 60_000).toISOString() });
    const streams = await openStreams(t, token);
    clock.advance(59_999);
    expect((await send(t.port, { method: 'GET', target: '/notifications/alice', auth: token.secret })).status).toBe(200);
    expect(t.hub.size).toBe(2);

    clock.advance(1);

    // The expiry timer ended them as the clock passed expiresAt, not a later sweep.
    expect(t.hub.size).toBe(0);
    await streams.ended();
    expect(await answersTo(t, token.secret)).toEqual(REFUSED);
  });

  it('expiring in 30 days (past what setTimeout takes): its streams stay open until then, and end when it passes', async () => {
    const clock = new ManualClock();
    const thirtyDays = 30 * 24 * 60 * 60 * 1000;
    // The streams' heartbeats run on the same clock: one per 15 s for 30 days would fill the buffers of these unread
    // streams; what is tested here is the token's end, so they beat once a year.
    const t = await buildKeyedApp({ clock, config: { SSE_HEARTBEAT_MS: 12 * thirtyDays } });
    const token = await issueToken(t.port, READS_ALICE, { expiresAt: new Date(clock.now() + thirtyDays).toISOString() });
    const streams = await openStreams(t, token);
    clock.advance(1_000);
    clock.advance(thirtyDays - 1_001);
    expect((await send(t.port, { method: 'GET', target: '/notifications/alice', auth: token.secret })).status).toBe(200);
    expect(t.hub.size).toBe(2);

    clock.advance(1);

    // The expiry timer ended them as the clock passed expiresAt, not a later sweep.
    expect(t.hub.size).toBe(0);
    await streams.ended();
    expect(await answersTo(t, token.secret)).toEqual(REFUSED);
  });

  it('changed (PATCH of its scopes): its streams end, and it goes on with what it may do now', async () => {
    const t = await buildKeyedApp();
    const token = await issueToken(t.port, READS_ALICE);
    const streams = await openStreams(t, token);

    await sendAsAdmin(t.port, { method: 'PATCH', target: `/tokens/${token.id}`, body: { scopes: [{ scope: 'notifications:read', recipients: ['bob'] }] } });

    expect(t.hub.size).toBe(0);
    await streams.ended();
    expect((await send(t.port, { method: 'GET', target: '/notifications/alice', auth: token.secret })).status).toBe(403);
    expect((await send(t.port, { method: 'GET', target: '/notifications/bob', auth: token.secret })).status).toBe(200);
  });
});
