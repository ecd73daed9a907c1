import { request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createErrorHandler } from '@homeops/common';
import express, { type Express } from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '@homeops/test-kit';
import { createBodyParsersWith, largeBodyBudget } from '../../src/http/attachment-upload.middleware.js';
import { ByteBudget } from '../../src/http/byte-budget.js';
import { pngOfSize } from '../support/files.js';
import { buildTestApp, silentLogger } from '../support/test-app.js';

const MiB = 1024 * 1024;

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

async function listen(app: Express): Promise<number> {
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  return (server.address() as AddressInfo).port;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** POST /notifications on its own connection, with a Content-Length or chunked. */
function post(port: number, body: Buffer, chunked = false): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers = { 'content-type': 'application/json', ...(chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': body.length }) };
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/notifications', agent: false, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const largeCreate = (attachmentBytes: number) =>
  Buffer.from(
    JSON.stringify({
      recipient: 'ops',
      message: 'Motion',
      attachment: { filename: 'door.png', contentType: 'image/png', data: pngOfSize(attachmentBytes).toString('base64') },
    }),
  );

describe('POST /notifications: large bodies share one memory budget', () => {
  it('reads a large body only once its share of the budget is free', { timeout: 20_000 }, async () => {
    const t = await buildTestApp();
    const port = await listen(t.app);
    const everything = await largeBodyBudget.acquire(Number.MAX_SAFE_INTEGER);

    const answer = post(port, largeCreate(MiB));
    await eventually(() => largeBodyBudget.waiting === 1);
    const storedWhileWaiting = (await t.repository.stats()).records;
    everything();

    expect(storedWhileWaiting).toBe(0);
    expect((await answer).status).toBe(201);
  });

  it('lets 30 concurrent 7 MB creates all succeed, and is whole again afterwards', { timeout: 60_000 }, async () => {
    const t = await buildTestApp();
    const port = await listen(t.app);
    const free = largeBodyBudget.free;
    const body = largeCreate(5 * MiB);
    expect(body.length).toBeGreaterThan(6.9e6);

    const answers = await Promise.all(Array.from({ length: 30 }, () => post(port, body)));

    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 30 }, () => 201));
    expect((await t.repository.stats()).records).toBe(30);
    expect(largeBodyBudget.free).toBe(free);
    expect(largeBodyBudget.waiting).toBe(0);
  });

  it('answers 503 SERVER_BUSY with Retry-After, without reading the body, once the wait passes its bound', async () => {
    const budget = new ByteBudget({ capacity: MiB, maxWaitMs: 50 });
    const app = express();
    app.use(createBodyParsersWith(budget));
    app.post('/notifications', (_req, res) => void res.status(201).json({}));
    app.use(createErrorHandler(silentLogger));
    const port = await listen(app);
    const everything = await budget.acquire(MiB);

    const answer = await post(port, Buffer.alloc(200 * 1024, 0x20), true);
    everything();

    expect(answer.status).toBe(503);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'SERVER_BUSY' });
    expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
    expect(answer.headers.connection).toBe('close');
    expect(budget.free).toBe(MiB);
  });
});
