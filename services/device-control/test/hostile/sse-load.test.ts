import { afterEach, describe, expect, it } from 'vitest';
import { drainEventLoop, eventually, openRawStream, within, type RawStream } from '@homeops/test-kit';
import { serveTestApp, type ServedApp } from './served-app.js';
import { cloudDevice } from '../fakes/fake-device-cloud.js';

const apps: ServedApp[] = [];
const streams: RawStream[] = [];
afterEach(async () => {
  for (const stream of streams.splice(0)) stream.socket.destroy();
  for (const app of apps.splice(0)) await app.stop();
});

describe('device-control /events under load', () => {
  it('disconnects a client that never reads instead of buffering for it, and keeps serving a reading client', { timeout: 30_000 }, async () => {
    const app = await serveTestApp();
    apps.push(app);
    const stalled = await openRawStream(app.port, '/events', { read: false });
    const reader = await openRawStream(app.port, '/events');
    streams.push(stalled, reader);
    await eventually(() => app.streams.size === 2, { what: 'both streams open', timeoutMs: 5_000 });
    const heapBefore = process.memoryUsage().heapUsed;

    // Device events with long names (~1 KB each), in batches so the socket buffers really fill.
    const name = 'n'.repeat(900);
    app.cloud.addDevice(cloudDevice({ uuid: 'chatty', name, channels: [{ channel: 0, name }] }));
    await app.devices.sync();
    let produced = 0;
    for (let batch = 0; batch < 600 && app.streams.size === 2; batch++) {
      for (let i = 0; i < 50; i++, produced++) app.cloud.emit({ type: 'channel', uuid: 'chatty', channel: 0, on: produced % 2 === 0, source: 'push' });
      await drainEventLoop(1);
    }
    await eventually(() => app.streams.size === 1, { what: 'the stalled client cut', timeoutMs: 5_000 });
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(64 * 1024 * 1024);
    const received = reader.text().length;
    app.cloud.pressButton('strip-1', 3);
    await reader.waitFor(/"uuid":"strip-1"[^\n]*"channel":3/, 10_000);
    expect(reader.text().length).toBeGreaterThan(received);
  });

  it('refuses the 21st stream from one address and the 201st in all with 429, under the default limits', { timeout: 30_000 }, async () => {
    const app = await serveTestApp();
    apps.push(app);
    const opened = await Promise.all(Array.from({ length: 20 }, () => openRawStream(app.port, '/events')));
    streams.push(...opened);
    await eventually(() => app.streams.size === 20, { what: '20 streams open', timeoutMs: 5_000 });
    const refused = await openRawStream(app.port, '/events');
    streams.push(refused);
    await refused.waitFor(/^HTTP\/1\.1 429 [^]*"code":"TOO_MANY_STREAMS"/, 5_000);
    // 200 in all, from ten addresses of 127.0.0.0/8.
    for (let host = 2; host <= 10; host++) {
      streams.push(...(await Promise.all(Array.from({ length: 20 }, () => openRawStream(app.port, '/events', { localAddress: `127.0.0.${host}` })))));
    }
    await eventually(() => app.streams.size === 200, { what: '200 streams open', timeoutMs: 10_000 });
    const past = await openRawStream(app.port, '/events', { localAddress: '127.0.0.11' });
    streams.push(past);
    await past.waitFor(/^HTTP\/1\.1 429 /, 5_000);
    expect(app.streams.size).toBe(200);
  });

  it('serves 500 concurrent event-stream clients (limits raised to 500): one button press reaches every one of them', { timeout: 60_000 }, async () => {
    const app = await serveTestApp({ streamLimits: { maxStreams: 500, maxStreamsPerAddress: 500 } });
    apps.push(app);
    const clients: RawStream[] = [];
    for (let i = 0; i < 500; i += 50) {
      const batch = await Promise.all(Array.from({ length: 50 }, () => openRawStream(app.port, '/events')));
      clients.push(...batch);
      streams.push(...batch);
    }
    await eventually(() => app.streams.size === 500, { what: '500 streams open', timeoutMs: 15_000 });
    await within(15_000, 'the button press reaching all 500 streams', async () => {
      app.cloud.pressButton('strip-1', 2);
      await Promise.all(clients.map((client) => client.waitFor(/event: channel\ndata: [^\n]*"uuid":"strip-1"/, 15_000)));
    });
    expect(clients.every((c) => !c.closed)).toBe(true);
  });
});
