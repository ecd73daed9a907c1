import { eventually } from '@homeops/test-kit';
import { describe, expect, it } from 'vitest';
import { FakePushProvider } from '../fakes/fake-push.provider.js';
import { subscribeEvents, type SseEvent } from '../support/sse-subscribe.js';
import { API_KEY, buildKeyedApp, issueToken, sendAsAdmin, storeNotification, type KeyedApp } from './access-kit.js';

const bearer = (secret: string, more: Record<string, string> = {}) => ({ Authorization: `Bearer ${secret}`, ...more });

/** Two notifications, one read, the rest read with read-all, the first deleted: every kind of event of an inbox. */
async function activity(t: KeyedApp, recipient: string, tag: string): Promise<void> {
  const first = await storeNotification(t.port, recipient, { message: `${recipient} ${tag} 1` });
  await storeNotification(t.port, recipient, { message: `${recipient} ${tag} 2` });
  await sendAsAdmin(t.port, { method: 'PATCH', target: `/notifications/${first}/read` });
  await sendAsAdmin(t.port, { method: 'POST', target: `/notifications/${recipient}/read-all` });
  await sendAsAdmin(t.port, { method: 'DELETE', target: `/notifications/${first}` });
}

const EVENTS_OF_ACTIVITY = ['created', 'created', 'read', 'read-all', 'deleted'];

/** The last event a stream should get: once it is there, anything sent before it has arrived too. */
async function marker(t: KeyedApp, events: SseEvent[], tag: string): Promise<void> {
  await storeNotification(t.port, 'alice', { message: `marker ${tag}` });
  await eventually(() => events.some((e) => (e.data as { message?: string }).message === `marker ${tag}`), `the marker ${tag}`);
}

const mentionsBob = (events: SseEvent[]) => events.filter((e) => JSON.stringify(e).includes('bob'));

describe("a stream opened with alice's read token", () => {
  it.each(['/events', '/notifications/alice/stream'])(
    "%s carries alice's events and none of bob's, live and replayed after a reconnect with Last-Event-ID",
    { timeout: 20_000 },
    async (path) => {
      // Delivery off: no delivery events, whose timing would make the order of the events vary.
      const t = await buildKeyedApp({ provider: new FakePushProvider(false) });
      const token = await issueToken(t.port, [{ scope: 'notifications:read', recipients: ['alice'] }]);
      const witness = await subscribeEvents(t.port, '/events', bearer(API_KEY));
      const first = await subscribeEvents(t.port, path, bearer(token.secret));
      await eventually(() => t.hub.size === 2, 'both streams to open');

      // Live: bob's activity between alice's.
      await activity(t, 'bob', 'live');
      await activity(t, 'alice', 'live');
      await marker(t, first.events, 'live');
      expect(first.events.map((e) => e.event)).toEqual([...EVENTS_OF_ACTIVITY, 'created']);
      expect(mentionsBob(first.events)).toEqual([]);

      // Missed while away: bob's and alice's, replayed from the last id seen.
      const lastSeen = first.events.at(-1)!.id!;
      first.res.destroy();
      await eventually(() => t.hub.size === 1, 'the first stream to close');
      await activity(t, 'bob', 'missed');
      await activity(t, 'alice', 'missed');
      const again = await subscribeEvents(t.port, path, bearer(token.secret, { 'Last-Event-ID': lastSeen }));
      await marker(t, again.events, 'after reconnect');
      expect(again.events.map((e) => e.event)).toEqual([...EVENTS_OF_ACTIVITY, 'created']);
      expect(again.events.slice(0, 2).map((e) => (e.data as { message: string }).message)).toEqual(['alice missed 1', 'alice missed 2']);
      expect(mentionsBob(again.events)).toEqual([]);

      // Bob's events did happen: the key's stream saw them all.
      expect(mentionsBob(witness.events).length).toBe(2 * EVENTS_OF_ACTIVITY.length);
      again.res.destroy();
      witness.res.destroy();
    },
  );

  it('opening /notifications/bob/stream answers 403, with or without Last-Event-ID', async () => {
    const t = await buildKeyedApp();
    const token = await issueToken(t.port, [{ scope: 'notifications:read', recipients: ['alice'] }]);

    for (const headers of [bearer(token.secret), bearer(token.secret, { 'Last-Event-ID': '0-0' })]) {
      const { res } = await subscribeEvents(t.port, '/notifications/bob/stream', headers);
      expect(res.statusCode).toBe(403);
      res.destroy();
    }
    expect(t.hub.size).toBe(0);
  });
});
