import { join } from 'node:path';
import { expectErrorBody, sendRaw, type RawResponse } from '@homeops/test-kit';
import { describe, expect, it } from 'vitest';
import { App } from '../../src/index.js';
import { buildTestApp, listenOn, makeTempDir } from '../support/test-app.js';

/** A create body whose `x` holds arrays nested `depth` deep (the body itself adds one level), then `tail` bytes. */
function nestedBody(depth: number, tail: Buffer = Buffer.alloc(0), padTo = 0): Buffer {
  const head = Buffer.from(`{"recipient":"ops","message":"m","pad":"${'p'.repeat(Math.max(0, padTo - 2 * depth))}","x":${'['.repeat(depth)}"`);
  return Buffer.concat([head, tail, Buffer.from(`"${']'.repeat(depth)}}`)]);
}

/** A byte that is not UTF-8, decoded as U+FFFD: what sent the old report of such bytes into its recursive walk. */
const NOT_UTF8 = Buffer.from([0xff]);

type Framing = 'lean' | 'large' | 'chunked';

/** POST /notifications: `lean` (small, Content-Length), `large` (over 64 KiB, Content-Length) or chunked. */
function post(port: number, body: Buffer, framing: Framing): Promise<RawResponse> {
  const headers: Array<[string, string]> = [['Content-Type', 'application/json']];
  if (framing !== 'chunked') return sendRaw(port, { method: 'POST', target: '/notifications', headers, body }, 10_000);
  const wire = Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')]);
  return sendRaw(port, { method: 'POST', target: '/notifications', headers: [...headers, ['Transfer-Encoding', 'chunked']], body: wire }, 10_000);
}

const bodyOf = (res: RawResponse) => JSON.parse(res.body.toString('utf8')) as { code: string; error: string; details?: unknown };

const listen = async (): Promise<number> => listenOn((await buildTestApp()).app);

describe('POST /notifications with deeply nested JSON', () => {
  it.each<[Framing, number, number]>([
    ['lean', 30_000, 0],
    ['large', 60_000, 0],
    ['chunked', 60_000, 0],
    ['large', 100, 70_000],
  ])(
    'answers 400 JSON_TOO_DEEP naming the limit (%s body, %i deep, bytes that are not UTF-8), then keeps serving',
    { timeout: 20_000 },
    async (framing, depth, padTo) => {
      const port = await listen();
      const body = nestedBody(depth, NOT_UTF8, padTo);
      expect(body.length > 64 * 1024).toBe(framing !== 'lean');

      const res = await post(port, body, framing);

      expect(res.status).toBe(400);
      expectErrorBody(res, `${framing} deep body`);
      expect(bodyOf(res)).toMatchObject({ code: 'JSON_TOO_DEEP', error: expect.stringContaining('32') });
      const after = await post(port, Buffer.from('{"recipient":"ops","message":"still here"}'), 'lean');
      expect(after.status).toBe(201);
    },
  );

  it.each<Framing>(['lean', 'chunked'])('does not refuse 32 levels for depth, only 33 (%s body)', async (framing) => {
    const port = await listen();

    const atLimit = await post(port, nestedBody(31), framing);
    const overLimit = await post(port, nestedBody(32), framing);

    expect(atLimit.status).toBe(400);
    expect(bodyOf(atLimit)).toMatchObject({ code: 'VALIDATION_FAILED', details: [expect.objectContaining({ path: 'body' })] });
    expect(bodyOf(overLimit).code).toBe('JSON_TOO_DEEP');
  });

  it('names at most ten fields that hold bytes which are not UTF-8, however many there are', async () => {
    const port = await listen();
    const fields = Array.from({ length: 5_000 }, (_, i) => Buffer.concat([Buffer.from(`"f${i}":"`), NOT_UTF8, Buffer.from('",')]));
    const body = Buffer.concat([Buffer.from('{'), ...fields, Buffer.from('"recipient":"ops","message":"m"}')]);

    const res = await post(port, body, 'large');

    expect(res.status).toBe(400);
    expect(bodyOf(res)).toMatchObject({ code: 'VALIDATION_FAILED', error: 'The request body is not valid UTF-8' });
    expect(bodyOf(res).details).toHaveLength(10);
  });
});

describe('App (library) with deeply nested JSON', () => {
  it('answers 400 JSON_TOO_DEEP and keeps serving', { timeout: 20_000 }, async () => {
    const app = new App({ port: 0, storagePath: join(await makeTempDir(), 'n.yaml'), host: '127.0.0.1', provider: false, logLevel: 'silent' });
    await app.start();
    try {
      const res = await post(app.port, nestedBody(60_000, NOT_UTF8), 'chunked');
      expect(res.status).toBe(400);
      expect(bodyOf(res).code).toBe('JSON_TOO_DEEP');
      expect((await sendRaw(app.port, { method: 'GET', target: '/health' })).status).toBe(200);
    } finally {
      await app.stop();
    }
  });
});
