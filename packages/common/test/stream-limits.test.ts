import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createErrorHandler, EventStreamHub, serve, type RunningServer } from '../src/index.js';
import { captureLogger } from './helpers.js';

let running: RunningServer | undefined;
const clients: ClientRequest[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.destroy();
  await running?.stop();
  running = undefined;
});

async function start(hub: EventStreamHub) {
  const app = express();
  app.get('/stream', (req, res) => void hub.open(req, res));
  app.use(createErrorHandler(captureLogger().logger));
  running = await serve({ app, port: 0, host: '127.0.0.1', logger: captureLogger().logger, graceMs: 200 });
  return running.port;
}

function open(port: number, localAddress = '127.0.0.1'): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ port, host: '127.0.0.1', localAddress, path: '/stream', agent: false }, resolve);
    req.on('error', reject);
    req.end();
    clients.push(req);
  });
}

const bodyOf = async (res: IncomingMessage) => {
  let text = '';
  for await (const chunk of res) text += String(chunk);
  return JSON.parse(text) as { code: string };
};

describe('EventStreamHub limits', () => {
  it('answers 429 with Retry-After past the per-address limit, and frees the slot when a stream closes', async () => {
    const hub = new EventStreamHub({ maxStreamsPerAddress: 3, maxStreams: 100 });
    const port = await start(hub);
    const accepted = await Promise.all([0, 1, 2].map(() => open(port)));
    expect(accepted.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    const refused = await open(port);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('5');
    expect((await bodyOf(refused)).code).toBe('TOO_MANY_STREAMS');
    // Another address still gets in.
    expect((await open(port, '127.0.0.2')).statusCode).toBe(200);
    accepted[0]!.destroy();
    await expect.poll(() => hub.size).toBe(3);
    expect((await open(port)).statusCode).toBe(200);
  });

  it('answers 429 past the total limit whoever asks', async () => {
    const hub = new EventStreamHub({ maxStreamsPerAddress: 10, maxStreams: 2 });
    const port = await start(hub);
    await open(port, '127.0.0.3');
    await open(port, '127.0.0.4');
    expect((await open(port, '127.0.0.5')).statusCode).toBe(429);
  });
});
