import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { App, type NotificationRecord } from '../../src/index.js';
import { makeTempDir } from '../support/test-app.js';

let fakePushover: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (fakePushover ? fakePushover.close(() => resolve()) : resolve())));

/** A stand-in for api.pushover.net on 127.0.0.1 that accepts every message. */
async function startFakePushover(received: string[]): Promise<string> {
  fakePushover = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push(`${req.method} ${req.url} ${body}`);
      res.writeHead(200, { 'content-type': 'application/json', 'x-limit-app-remaining': '9999' });
      res.end(JSON.stringify({ status: 1, request: 'fake-request-id' }));
    });
  });
  fakePushover.listen(0, '127.0.0.1');
  await new Promise((resolve) => fakePushover!.once('listening', resolve));
  return `http://127.0.0.1:${(fakePushover.address() as AddressInfo).port}`;
}

describe('App (library)', () => {
  it('starts with (port, path), exposes the bound port, and stops idempotently', async () => {
    const app = new App({ port: 0, storagePath: join(await makeTempDir(), 'n.yaml'), host: '127.0.0.1', provider: false, logLevel: 'silent' });
    await app.start();
    expect(app.port).toBeGreaterThan(0);
    const health = await (await fetch(`http://127.0.0.1:${app.port}/health`)).json();
    expect(health).toMatchObject({ version: '0.0.7', provider: { enabled: false } });
    await app.stop();
    await app.stop();
    await expect(fetch(`http://127.0.0.1:${app.port}/health`)).rejects.toThrow();
  });

  it('rejects start when the port is taken, releasing the history for the next start', async () => {
    const dir = await makeTempDir();
    const options = { host: '127.0.0.1', provider: false as const, logLevel: 'silent' as const };
    const first = new App({ ...options, port: 0, storagePath: join(dir, 'a.yaml') });
    await first.start();
    const clash = new App({ ...options, port: first.port, storagePath: join(dir, 'b.yaml') });
    await expect(clash.start()).rejects.toThrow(/EADDRINUSE/);
    await first.stop();
    const retry = new App({ ...options, port: 0, storagePath: join(dir, 'b.yaml') });
    await retry.start();
    await retry.stop();
  });

  it('accepts the positional form new App(port, storagePath)', () => {
    const app = new App(9095, './notifications.yaml');
    expect(app.port).toBe(9095);
    expect(() => new App(9095, '')).toThrow(/storage path/);
  });

  it('delivers through Pushover at the configured API URL and records the request id', async () => {
    const received: string[] = [];
    const apiUrl = await startFakePushover(received);
    const app = new App({
      port: 0,
      storagePath: join(await makeTempDir(), 'n.yaml'),
      host: '127.0.0.1',
      provider: { userKey: 'u'.repeat(30), apiToken: 'a'.repeat(30), apiUrl },
      logLevel: 'silent',
    });
    await app.start();
    const res = await fetch(`http://127.0.0.1:${app.port}/notifications`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ recipient: 'ops', title: 'T', message: 'hello', priority: 0, sound: 'bike' }),
    });
    const record = (await res.json()) as NotificationRecord;
    await app.stop();
    expect(res.status).toBe(201);
    expect(record.delivery).toMatchObject({ status: 'sent', attempts: 1, request: 'fake-request-id' });
    // Besides the message: the key validation and the sound list read at start.
    const messages = received.filter((r) => r.startsWith('POST /1/messages.json'));
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/hello/);
  });
});
