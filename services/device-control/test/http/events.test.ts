import { createLogger, ManualClock, serve, type RunningServer } from '@homeops/common';
import { eventually } from '@homeops/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { SseClient } from '../support/sse-client.js';
import { buildTestApp, type TestApp, type TestAppOptions } from '../support/test-app.js';

/** The running number of an event id (`<epoch>-<n>`). */
const seq = (id: string | undefined) => Number(id?.split('-')[1]);

let t: TestApp;
let server: RunningServer | undefined;
let client: SseClient | undefined;

afterEach(async () => {
  await client?.close();
  await t?.close();
  await server?.stop();
  client = undefined;
  server = undefined;
});

async function listen(options: TestAppOptions = {}): Promise<string> {
  t = await buildTestApp(options);
  server = await serve({ app: t.app, port: 0, host: '127.0.0.1', logger: createLogger({ service: 'test', level: 'silent' }), graceMs: 500 });
  return `http://127.0.0.1:${server.port}`;
}

async function post(url: string, body: unknown, method = 'POST'): Promise<Response> {
  return fetch(url, { method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
}

describe('GET /events', () => {
  it('streams a channel change made through the API', async () => {
    const base = await listen();
    client = await SseClient.connect(`${base}/events`);

    await post(`${base}/devices/plug-1/toggle`, { channel: 0 });

    expect(client.status).toBe(200);
    expect(client.contentType).toContain('text/event-stream');
    const read = await client.waitFor('channel', (d: { source: string }) => d.source === 'read');
    const command = await client.waitFor('channel', (d: { source: string }) => d.source === 'command');
    // The read turns the unknown state into "off", then the flip turns it on: two events, in order.
    expect(read.data).toMatchObject({ uuid: 'plug-1', channel: 0, on: false });
    expect(command.data).toMatchObject({ type: 'channel', uuid: 'plug-1', name: 'Desk Lamp', channel: 0, on: true });
    expect(seq(command.id)).toBeGreaterThan(seq(read.id));
  });

  it('streams a press on the physical button arriving as a cloud push', async () => {
    const base = await listen();
    client = await SseClient.connect(`${base}/events`);

    t.cloud.pressButton('strip-1', 3);

    const event = await client.waitFor('channel');
    expect(event.data).toEqual({ type: 'channel', uuid: 'strip-1', name: 'Strip', channel: 3, on: true, source: 'push' });
  });

  it('streams online and offline changes', async () => {
    const base = await listen();
    client = await SseClient.connect(`${base}/events`);

    t.cloud.setOnline('plug-1', false);

    const event = await client.waitFor('online');
    expect(event.data).toEqual({ type: 'online', uuid: 'plug-1', name: 'Desk Lamp', online: false, upgrading: false, controllable: false });
  });

  it('streams sync results and session changes', async () => {
    const base = await listen();
    client = await SseClient.connect(`${base}/events`);

    await post(`${base}/devices/sync`, {});
    t.cloud.setSession('backing-off', { retryAt: '2026-01-01T00:01:00.000Z' });

    const sync = await client.waitFor('sync');
    const session = await client.waitFor('session');
    expect(sync.data).toMatchObject({ ok: true, result: { total: 5, added: 0, removed: 0, updated: 0 } });
    expect(session.data).toMatchObject({ status: { state: 'backing-off', retryAt: '2026-01-01T00:01:00.000Z' } });
  });

  it('sends a heartbeat comment to keep proxies from closing the stream', async () => {
    const clock = new ManualClock();
    const base = await listen({ clock, heartbeatMs: 15_000 });
    client = await SseClient.connect(`${base}/events`);
    await eventually(() => t.streams.size === 1, 'the stream open');

    clock.advance(15_000);

    await expect(client.waitForComment('heartbeat')).resolves.toBe(`heartbeat ${clock.now()}`);
  });

  it('stops sending to a client that left, and counts open streams in /health', async () => {
    const base = await listen();
    client = await SseClient.connect(`${base}/events`);
    await eventually(() => t.streams.size === 1, 'the stream open');

    await client.close();
    client = undefined;

    await eventually(() => t.streams.size === 0, { what: 'the stream closed', timeoutMs: 2000 });
    t.cloud.pressButton('plug-1', 0);
    const health = (await (await fetch(`${base}/health`)).json()) as { eventStreams: number };
    expect(health.eventStreams).toBe(0);
  });
});

describe('GET /events after a reconnect', () => {
  it('gives a client that comes back with Last-Event-ID what it missed, in order, then the live events', async () => {
    const base = await listen();
    client = await SseClient.connect(`${base}/events`);
    await post(`${base}/devices/plug-1/channels/0`, { on: true }, 'PUT');
    const seen = await client.waitFor('channel', (d: { on: boolean }) => d.on);
    await client.close();

    await post(`${base}/devices/plug-1/channels/0`, { on: false }, 'PUT');
    await post(`${base}/devices/strip-1/channels/2`, { on: true }, 'PUT');
    client = await SseClient.connect(`${base}/events`, { 'Last-Event-ID': seen.id! });
    const missedOff = await client.waitFor('channel', (d: { uuid: string; on: boolean }) => d.uuid === 'plug-1' && !d.on);
    const missedStrip = await client.waitFor('channel', (d: { uuid: string }) => d.uuid === 'strip-1');
    await post(`${base}/devices/plug-1/channels/0`, { on: true }, 'PUT');
    const live = await client.waitFor('channel', (d: { uuid: string; on: boolean }) => d.uuid === 'plug-1' && d.on);

    expect(seq(missedOff.id)).toBeGreaterThan(seq(seen.id));
    expect(seq(missedStrip.id)).toBeGreaterThan(seq(missedOff.id));
    expect(seq(live.id)).toBeGreaterThan(seq(missedStrip.id));
  });

  it('tells a client whose Last-Event-ID is unknown or too old to reload, with a reset event', async () => {
    const base = await listen();

    client = await SseClient.connect(`${base}/events`, { 'Last-Event-ID': '999999' });
    const reset = await client.waitFor('reset', () => true);

    expect(reset.data).toMatchObject({ reason: expect.stringContaining('reload') });
  });
});
