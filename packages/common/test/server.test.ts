import { connect, type Socket } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { serve, type RunningServer, type ServerLimits } from '../src/index.js';
import { captureLogger } from './helpers.js';

function rawRequest(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    let data = '';
    socket.on('data', (chunk) => (data += chunk.toString('latin1')));
    socket.on('end', () => resolve(data));
    socket.on('error', reject);
    socket.setTimeout(5000, () => reject(new Error('no answer')));
  });
}

describe('serve', () => {
  let running: RunningServer | undefined;
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  async function start(handler: express.RequestHandler = (_req, res) => void res.json({ ok: true }), limits: Partial<ServerLimits> = {}) {
    const app = express();
    app.get('/{*any}', handler);
    running = await serve({ app, port: 0, host: '127.0.0.1', logger: captureLogger().logger, graceMs: 500, limits });
    return running.port;
  }

  it('listens on loopback when no host is given', async () => {
    const app = express();
    running = await serve({ app, port: 0, logger: captureLogger().logger, graceMs: 500 });
    expect(running.server.address()).toMatchObject({ address: '127.0.0.1' });
  });

  it('rejects with an error naming the port when another server holds it, and logs no listening line', async () => {
    const port = await start();
    const { logger, lines } = captureLogger();
    const app = express();

    const clash = serve({ app, port, host: '127.0.0.1', logger });

    await expect(clash).rejects.toMatchObject({
      code: 'EADDRINUSE',
      port,
      message: `port ${port} on 127.0.0.1 is already in use (EADDRINUSE): stop the process that holds it or choose another PORT`,
    });
    expect(lines).toEqual([]);
  });

  // The bound is the test's own timeout: Node's default check interval (30 s) would cut it off far too late.
  it('cuts off a client that sends its headers slowly, with 408 and the error body', { timeout: 3_500 }, async () => {
    const port = await start(undefined, { headersTimeoutMs: 1_000 });
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    const drip = setInterval(() => socket.writable && socket.write('X-Slow: y\r\n'), 200);
    socket.write('GET / HTTP/1.1\r\nHost: x\r\n');
    await new Promise((resolve) => socket.on('close', resolve)).finally(() => clearInterval(drip));
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(answer.split('\r\n\r\n')[1] ?? '').code).toBe('REQUEST_TIMEOUT');
  });

  it('closes connections past the cap as they arrive and serves the ones within it', async () => {
    const port = await start(undefined, { maxConnections: 2 });
    const held = await Promise.all(
      [0, 1].map(
        () =>
          new Promise<Socket>((resolve) => {
            const s = connect(port, '127.0.0.1', () => resolve(s));
          }),
      ),
    );
    // The server counts a connection once it accepted it: wait until both are counted.
    await expect.poll(() => new Promise((resolve) => running!.server.getConnections((_e, n) => resolve(n)))).toBe(2);
    await expect(rawRequest(port, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).resolves.toBe('');
    held[0]!.destroy();
    await expect.poll(() => new Promise((resolve) => running!.server.getConnections((_e, n) => resolve(n)))).toBe(1);
    expect(await rawRequest(port, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 200 /);
    held[1]!.destroy();
  });

  it('answers a request target with raw non-ASCII bytes with 400 and the error body', async () => {
    const port = await start();
    const answer = await rawRequest(port, 'GET /caf\xc3\xa9 HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(answer.split('\r\n\r\n')[1] ?? '')).toEqual({ error: 'Malformed HTTP request', solution: expect.any(String), code: 'MALFORMED_REQUEST' });
  });

  it('answers headers over the limit with 431 and the error body', async () => {
    const port = await start();
    const answer = await rawRequest(port, `GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(JSON.parse(answer.split('\r\n\r\n')[1] ?? '').error).toBe('Request headers or URL too long');
  });

  it('lets an in-flight request finish when stopped', async () => {
    let arrived!: () => void;
    const inHandler = new Promise<void>((resolve) => (arrived = resolve));
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    // The handler answers only when the test says so: after the stop has begun.
    const port = await start((_req, res) => {
      arrived();
      void answered.then(() => res.json({ late: true }));
    });
    const pending = fetch(`http://127.0.0.1:${port}/slow`).then((r) => r.json());
    await inHandler;
    const stopped = running!.stop();
    expect(running!.server.listening).toBe(false);
    answer();
    expect(await pending).toEqual({ late: true });
    await stopped;
    running = undefined;
    await expect(fetch(`http://127.0.0.1:${port}/again`)).rejects.toThrow();
  });
});
