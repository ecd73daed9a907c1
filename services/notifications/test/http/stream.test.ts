import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { eventually } from '@homeops/test-kit';
import { subscribeEvents } from '../support/sse-subscribe.js';
import { buildTestApp, listenOn, type TestApp } from '../support/test-app.js';

/** The running number of an event id (`<epoch>-<n>`). */
const seq = (id: string | undefined) => Number(id?.split('-')[1]);

/** Connects to a recipient's stream. */
const subscribe = (port: number, recipient: string, headers: Record<string, string> = {}) =>
  subscribeEvents(port, `/notifications/${recipient}/stream`, headers);

const listen = (t: TestApp): Promise<number> => listenOn(t.app);

describe('GET /notifications/:recipient/stream', () => {
  it('streams created, read, unread and deleted events of that recipient only', { timeout: 10_000 }, async () => {
    const t = await buildTestApp();
    const port = await listen(t);
    const { events, res } = await subscribe(port, 'ops');
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    await eventually(() => t.hub.size === 1);

    await request(t.app).post('/notifications').send({ recipient: 'family', message: 'not for ops' });
    const id = (await request(t.app).post('/notifications').send({ recipient: 'ops', message: 'for ops' })).body.id;
    await request(t.app).patch(`/notifications/${id}/read`);
    await request(t.app).patch(`/notifications/${id}/unread`);
    await request(t.app).post('/notifications/ops/read-all');
    await request(t.app).delete(`/notifications/${id}`);

    await eventually(() => events.some((e) => e.event === 'deleted'));
    expect(events.map((e) => e.event)).toEqual(['created', 'delivery', 'read', 'unread', 'read-all', 'deleted']);
    expect(events[0]!.data).toMatchObject({ id, recipient: 'ops', message: 'for ops' });
    expect(events[2]!.data).toMatchObject({ id, read: true });
    expect(events[4]!.data).toEqual({ updated: 1, readAt: expect.any(String) });
    expect(events[5]!.data).toEqual({ id });
    res.destroy();
    await eventually(() => t.hub.size === 0);
  });

  it('sends heartbeats while idle', { timeout: 10_000 }, async () => {
    const t = await buildTestApp({ config: { SSE_HEARTBEAT_MS: 50 } });
    const port = await listen(t);
    const chunks: string[] = [];
    const { res } = await subscribe(port, 'ops');
    res.on('data', (c: string) => chunks.push(c));
    await eventually(() => chunks.join('').includes(': heartbeat'));
    res.destroy();
    t.hub.closeAll();
  });

  it(
    'gives a stream that comes back with Last-Event-ID what it missed of its recipient, then live events; a reset when too much was missed',
    { timeout: 10_000 },
    async () => {
      const t = await buildTestApp();
      const port = await listen(t);
      const first = await subscribe(port, 'ops');
      await eventually(() => t.hub.size === 1);
      await request(t.app).post('/notifications').send({ recipient: 'ops', message: 'one' });
      await eventually(() => first.events.some((e) => e.event === 'delivery'));
      const lastSeen = first.events.at(-1)!.id!;
      first.res.destroy();
      await eventually(() => t.hub.size === 0);

      const two = (await request(t.app).post('/notifications').send({ recipient: 'ops', message: 'two' })).body.id;
      await request(t.app).post('/notifications').send({ recipient: 'family', message: 'not for ops' });
      const again = await subscribe(port, 'ops', { 'Last-Event-ID': lastSeen });
      await eventually(() => again.events.filter((e) => e.event === 'created').length === 1);
      const three = (await request(t.app).post('/notifications').send({ recipient: 'ops', message: 'three' })).body.id;
      await eventually(() => again.events.filter((e) => e.event === 'created').length === 2);
      const stale = await subscribe(port, 'ops', { 'Last-Event-ID': `${lastSeen.split('-')[0]}-0` });
      const unknown = await subscribe(port, 'ops', { 'Last-Event-ID': '424242' });
      // An id of the same shape from before a restart (another epoch) is never taken for one of this process.
      const restarted = await subscribe(port, 'ops', { 'Last-Event-ID': `${lastSeen.split('-')[0] === '0badf00d' ? '0badf00e' : '0badf00d'}-1` });
      await eventually(() => unknown.events.some((e) => e.event === 'reset') && restarted.events.some((e) => e.event === 'reset'));
      await eventually(() => stale.events.filter((e) => e.event === 'created').length === 3, 'the replay to the stale stream');

      expect(again.events.filter((e) => e.event === 'created').map((e) => (e.data as { id: string }).id)).toEqual([two, three]);
      expect(again.events.map((e) => seq(e.id))).toEqual([...again.events.map((e) => seq(e.id))].sort((a, b) => a - b));
      expect(seq(again.events[0]!.id)).toBeGreaterThan(seq(lastSeen));
      // Number 0 of this epoch: nothing was ever dropped, so everything of ops since the start is replayed.
      const one = (first.events.find((e) => e.event === 'created')!.data as { id: string }).id;
      expect(stale.events.filter((e) => e.event === 'created').map((e) => (e.data as { id: string }).id)).toEqual([one, two, three]);
      expect(unknown.events.map((e) => e.event)).toEqual(['reset']);
      expect(restarted.events.map((e) => e.event)).toEqual(['reset']);
      for (const s of [again, stale, unknown, restarted]) s.res.destroy();
      t.hub.closeAll();
    },
  );
});
