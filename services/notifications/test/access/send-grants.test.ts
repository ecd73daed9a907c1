import { ManualClock } from '@homeops/common';
import { describe, expect, it } from 'vitest';
import { FakePushProvider, permanent } from '../fakes/fake-push.provider.js';
import { API_KEY, buildKeyedApp, issueToken, send, sendAsAdmin, storeNotification, type KeyedApp } from './access-kit.js';

// A send token may carry a priority ceiling and a rate: one token must not ring emergencies it was not given, nor spend
// the household's Pushover messages in a loop.
const NOW = Date.parse('2026-11-28T08:00:00Z');
const create = (t: KeyedApp, auth: string, extra: Record<string, unknown> = {}) =>
  send(t.port, { method: 'POST', target: '/notifications', auth, body: { recipient: 'alice', message: 'door open', ...extra } });

describe('a notifications:send grant with maxPriority', () => {
  it('refuses a higher priority with 403 naming the ceiling on every way to send, and sends nothing', async () => {
    const t = await buildKeyedApp();
    const token = await issueToken(t.port, [{ scope: 'notifications:send', maxPriority: 1 }]);
    const stored = await storeNotification(t.port, 'alice', { priority: 2 });
    const sent = t.provider.sent.length;

    const refused = [
      await create(t, token.secret, { priority: 2 }),
      await send(t.port, {
        method: 'POST',
        target: '/notifications?delaySeconds=60',
        auth: token.secret,
        body: { recipient: 'alice', message: 'x', priority: 2 },
      }),
      await send(t.port, {
        method: 'PUT',
        target: '/scheduled/later',
        auth: token.secret,
        body: { recipient: 'alice', message: 'x', priority: 2, delaySeconds: 60 },
      }),
      await send(t.port, {
        method: 'PUT',
        target: '/heartbeats/backup',
        auth: token.secret,
        body: { intervalSeconds: 3600, notification: { recipient: 'alice', message: 'missed', priority: 2 } },
      }),
      await send(t.port, { method: 'POST', target: '/hooks/generic?recipient=alice&priority=2', auth: token.secret, body: { message: 'disk full' } }),
      await send(t.port, { method: 'POST', target: `/notifications/${stored}/resend`, auth: token.secret }),
    ];

    expect(refused.map((res) => res.status)).toEqual([403, 403, 403, 403, 403, 403]);
    expect(refused[0]!.json).toMatchObject({ code: 'SCOPE_MISSING', error: 'This token may send at most priority 1, not 2', solution: expect.any(String) });
    expect(t.provider.sent.length).toBe(sent);
    expect((await sendAsAdmin<{ scheduled: unknown[] }>(t.port, { method: 'GET', target: '/scheduled' })).scheduled).toEqual([]);
    expect((await create(t, token.secret, { priority: 1 })).status).toBe(201);
  });

  it('leaves a token without maxPriority free to send priority 2', async () => {
    const t = await buildKeyedApp();
    const token = await issueToken(t.port, ['notifications:send']);

    const res = await create(t, token.secret, { priority: 2 });

    expect(res.status).toBe(201);
    expect(t.provider.sent.at(-1)?.priority).toBe(2);
  });

  it('is taken by POST /tokens only on notifications:send, and shown by GET /tokens', async () => {
    const t = await buildKeyedApp();
    const refused = await Promise.all(
      [
        { scope: 'notifications:read', maxPriority: 0 },
        { scope: 'notifications:read', createsPerMinute: 5 },
        { scope: 'notifications:send', maxPriority: 3 },
      ].map((grant) => send(t.port, { method: 'POST', target: '/tokens', auth: API_KEY, body: { label: 'x', scopes: [grant] } })),
    );
    await issueToken(t.port, [{ scope: 'notifications:send', recipients: ['alice'], maxPriority: 0, createsPerMinute: 5 }], { label: 'door sensor' });

    const listed = await sendAsAdmin<{ tokens: Array<{ label: string; scopes: unknown[] }> }>(t.port, { method: 'GET', target: '/tokens' });

    expect(refused.map((res) => [res.status, (res.json as { code: string }).code])).toEqual(Array(3).fill([400, 'VALIDATION_FAILED']));
    expect(listed.tokens.find((token) => token.label === 'door sensor')?.scopes).toEqual([
      { scope: 'notifications:send', recipients: ['alice'], maxPriority: 0, createsPerMinute: 5 },
    ]);
  });
});

describe('a notifications:send grant with createsPerMinute', () => {
  it('answers 429 with Retry-After past the rate, leaves other callers alone, and sends again once the clock refilled it', async () => {
    const clock = new ManualClock(NOW);
    const t = await buildKeyedApp({ clock });
    const limited = await issueToken(t.port, [{ scope: 'notifications:send', createsPerMinute: 3 }]);
    const other = await issueToken(t.port, ['notifications:send']);

    const burst = [];
    for (let i = 0; i < 4; i++) burst.push(await create(t, limited.secret));
    const byOther = await create(t, other.secret);
    clock.advance(19_000);
    const stillEarly = await create(t, limited.secret);
    clock.advance(1_000);
    const refilled = await create(t, limited.secret);

    expect(burst.map((res) => res.status)).toEqual([201, 201, 201, 429]);
    expect(burst[3]!.json).toMatchObject({ code: 'TOO_MANY_CREATES', solution: expect.any(String) });
    expect(burst[3]!.headers['retry-after']).toBe('20');
    expect(byOther.status).toBe(201);
    expect(stillEarly.status).toBe(429);
    expect(stillEarly.headers['retry-after']).toBe('1');
    expect(refilled.status).toBe(201);
    // Three of the burst, the other token's and the refilled one: the refused ones never reached Pushover.
    await expect.poll(() => t.provider.sent.length).toBe(5);
  });

  it('counts scheduled sends, resends and hook calls against the same rate', async () => {
    const clock = new ManualClock(NOW);
    // Every delivery fails for good, so the stored notification may be resent.
    const t = await buildKeyedApp({ clock, provider: new FakePushProvider().alwaysAnswer(permanent()) });
    const limited = await issueToken(t.port, [{ scope: 'notifications:send', createsPerMinute: 3 }]);
    const failed = await storeNotification(t.port, 'alice');

    const answers = [
      await send(t.port, { method: 'PUT', target: '/scheduled/later', auth: limited.secret, body: { recipient: 'alice', message: 'x', delaySeconds: 60 } }),
      await send(t.port, { method: 'POST', target: '/hooks/generic?recipient=alice', auth: limited.secret, body: { message: 'disk full' } }),
      await send(t.port, { method: 'POST', target: `/notifications/${failed}/resend`, auth: limited.secret }),
      await create(t, limited.secret),
    ];

    expect(answers.map((res) => res.status)).toEqual([200, 201, 200, 429]);
  });
});
