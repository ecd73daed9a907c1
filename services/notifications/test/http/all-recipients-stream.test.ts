import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { eventually } from '@homeops/test-kit';
import { subscribeEvents } from '../support/sse-subscribe.js';
import { buildTestApp, listenOn, type TestApp } from '../support/test-app.js';

/** Connects to GET /events. */
const subscribe = (port: number, headers: Record<string, string> = {}) => subscribeEvents(port, '/events', headers);

const listen = (t: TestApp): Promise<number> => listenOn(t.app);

describe('GET /events', () => {
  it("streams every recipient's events, a recipient first seen included, each naming its recipient", { timeout: 10_000 }, async () => {
    const t = await buildTestApp();
    const port = await listen(t);
    const { events, res } = await subscribe(port);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    await eventually(() => t.hub.size === 1);

    const first = (await request(t.app).post('/notifications').send({ recipient: 'family', message: 'first ever' })).body.id;
    const second = (await request(t.app).post('/notifications').send({ recipient: 'ops', message: 'for ops' })).body.id;
    await request(t.app).post('/notifications/ops/read-all');
    await request(t.app).delete(`/notifications/${first}`);

    await eventually(() => events.some((e) => e.event === 'deleted'));
    const created = events.filter((e) => e.event === 'created').map((e) => e.data);
    expect(created).toEqual([expect.objectContaining({ id: first, recipient: 'family' }), expect.objectContaining({ id: second, recipient: 'ops' })]);
    expect(events.find((e) => e.event === 'read-all')?.data).toEqual({ recipient: 'ops', updated: 1, readAt: expect.any(String) });
    expect(events.find((e) => e.event === 'deleted')?.data).toEqual({ recipient: 'family', id: first });
    res.destroy();
    await eventually(() => t.hub.size === 0);
  });

  it('replays what a reconnecting client missed, of every recipient', { timeout: 10_000 }, async () => {
    const t = await buildTestApp();
    const port = await listen(t);
    const first = await subscribe(port);
    await eventually(() => t.hub.size === 1);
    await request(t.app).post('/notifications').send({ recipient: 'family', message: 'seen' });
    await eventually(() => first.events.some((e) => e.event === 'created'));
    const lastSeen = first.events.at(-1)!.id!;
    first.res.destroy();
    await eventually(() => t.hub.size === 0);

    await request(t.app).post('/notifications').send({ recipient: 'ops', message: 'missed' });
    await request(t.app).post('/notifications').send({ recipient: 'family', message: 'missed too' });
    const again = await subscribe(port, { 'Last-Event-ID': lastSeen });

    await eventually(() => again.events.filter((e) => e.event === 'created').length === 2);
    expect(again.events.filter((e) => e.event === 'created').map((e) => (e.data as { message: string }).message)).toEqual(['missed', 'missed too']);
    again.res.destroy();
  });
});
