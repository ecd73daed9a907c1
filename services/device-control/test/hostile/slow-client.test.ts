import { within } from '@homeops/test-kit';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { serveTestApp, type ServedApp } from './served-app.js';

let app: ServedApp | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

describe('device-control against a client that sends its headers slowly (default limits)', () => {
  it('cuts it off within 15 s with 408, and keeps answering others meanwhile', { timeout: 30_000 }, async () => {
    app = await serveTestApp();
    const { port } = app;
    let answer = '';
    await within(15_000, 'cutting off the slow client', async () => {
      const socket = connect(port, '127.0.0.1');
      socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
      socket.write('GET /devices HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      // One header line a second, forever: before the limits this held the socket as long as the client liked.
      const drip = setInterval(() => socket.writable && socket.write('X-Slow: y\r\n'), 1_000);
      const closed = new Promise((resolve) => socket.on('close', resolve));
      expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
      await closed.finally(() => clearInterval(drip));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  });
});
