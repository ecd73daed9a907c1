import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { NotificationRecord } from '../../src/domain/notification.js';
import { buildTestApp, type TestApp } from '../support/test-app.js';
import { eventually, openRawStream, sendRaw, within, type RawStream } from '@homeops/test-kit';

const servers: Server[] = [];
const streams: RawStream[] = [];
afterEach(async () => {
  for (const stream of streams.splice(0)) stream.socket.destroy();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** The service's app (default hub limits unless raised) on a real server on 127.0.0.1. */
async function listen(limits: { SSE_MAX_STREAMS?: number; SSE_MAX_STREAMS_PER_ADDRESS?: number } = {}): Promise<{ t: TestApp; port: number; server: Server }> {
  const t = await buildTestApp({ repository: 'memory', config: limits });
  const server = t.app.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  return { t, port: (server.address() as AddressInfo).port, server };
}

function bigRecord(i: number): NotificationRecord {
  return {
    id: `slow-${i}`,
    recipient: 'ops',
    title: 't'.repeat(250),
    message: 'm'.repeat(1024),
    priority: 0,
    read: false,
    readAt: null,
    createdAt: new Date().toISOString(),
    delivery: { status: 'skipped', attempts: 0 },
  };
}

const connections = (server: Server) => new Promise<number>((resolve) => server.getConnections((_e, n) => resolve(n)));

describe('notifications event stream under load', () => {
  it('disconnects a client that never reads instead of buffering for it, and keeps serving a reading client', { timeout: 30_000 }, async () => {
    const { t, port, server } = await listen();
    const stalled = await openRawStream(port, '/notifications/ops/stream', { read: false });
    const reader = await openRawStream(port, '/notifications/ops/stream');
    streams.push(stalled, reader);
    await eventually(() => t.hub.size === 2);
    const heapBefore = process.memoryUsage().heapUsed;

    // ~30 MB of realistic events (1.5 KB each), in batches so the socket buffers really fill.
    let published = 0;
    for (let batch = 0; batch < 400 && t.hub.size === 2; batch++) {
      for (let i = 0; i < 50; i++) t.ctx.events.publish({ type: 'created', recipient: 'ops', notification: bigRecord(published++) });
      await new Promise((resolve) => setImmediate(resolve));
    }
    await eventually(() => t.hub.size === 1, { timeoutMs: 5_000 });
    expect(published * 1500, 'bytes produced before the stalled client was cut').toBeLessThan(30 * 1024 * 1024);
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(64 * 1024 * 1024);
    await eventually(() => t.ctx.events.size === 1, { timeoutMs: 2_000 });
    expect(await connections(server)).toBe(1);

    t.ctx.events.publish({ type: 'created', recipient: 'ops', notification: bigRecord(999_999) });
    await reader.waitFor('"id":"slow-999999"', 10_000);
  });

  it('refuses the 21st stream from one address and the 201st in all with 429, under the default limits', { timeout: 30_000 }, async () => {
    const { t, port } = await listen();
    streams.push(...(await Promise.all(Array.from({ length: 20 }, () => openRawStream(port, '/notifications/ops/stream')))));
    await eventually(() => t.hub.size === 20, { timeoutMs: 5_000 });
    const refused = await openRawStream(port, '/notifications/ops/stream');
    streams.push(refused);
    await refused.waitFor(/^HTTP\/1\.1 429 [^]*"code":"TOO_MANY_STREAMS"/, 5_000);
    for (let host = 2; host <= 10; host++) {
      const batch = await Promise.all(Array.from({ length: 20 }, () => openRawStream(port, '/notifications/ops/stream', { localAddress: `127.0.0.${host}` })));
      streams.push(...batch);
    }
    await eventually(() => t.hub.size === 200, { timeoutMs: 10_000 });
    const past = await openRawStream(port, '/notifications/ops/stream', { localAddress: '127.0.0.11' });
    streams.push(past);
    await past.waitFor(/^HTTP\/1\.1 429 /, 5_000);
    expect(t.hub.size).toBe(200);
  });

  it('serves 500 concurrent event-stream clients (limits raised to 500): one create reaches every one of them', { timeout: 60_000 }, async () => {
    const { t, port } = await listen({ SSE_MAX_STREAMS: 500, SSE_MAX_STREAMS_PER_ADDRESS: 500 });
    const clients: RawStream[] = [];
    for (let i = 0; i < 500; i += 50) {
      const batch = await Promise.all(Array.from({ length: 50 }, () => openRawStream(port, '/notifications/fan-out/stream')));
      clients.push(...batch);
      streams.push(...batch);
    }
    await eventually(() => t.hub.size === 500, { timeoutMs: 15_000 });

    await within(15_000, 'the create reaching all 500 streams', async () => {
      const res = await sendRaw(port, {
        method: 'POST',
        target: '/notifications',
        headers: [['Content-Type', 'application/json']],
        body: JSON.stringify({ recipient: 'fan-out', message: 'to all 500' }),
      });
      expect(res.status).toBe(201);
      const { id } = JSON.parse(res.body.toString('utf8')) as { id: string };
      await Promise.all(clients.map((client) => client.waitFor(`"id":"${id}"`, 15_000)));
    });
    expect(clients.every((c) => !c.closed)).toBe(true);
  });
});
