import { request as httpRequest, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo, Socket } from 'node:net';
import { eventually, sendRaw } from '@homeops/test-kit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp } from '../support/test-app.js';

let server: Server;
let port: number;

// buildTestApp closes its history after each test, so each test gets its own app and server.
beforeEach(async () => {
  const { app } = await buildTestApp();
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  port = (server.address() as AddressInfo).port;
});
afterEach(() => new Promise((resolve) => server.close(resolve)));

/** POST /notifications with Content-Length (the lean reader) or chunked (express.json); status and body. */
function post(body: Buffer, contentType: string, framing: 'length' | 'chunked'): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'content-type': contentType };
    if (framing === 'length') headers['content-length'] = String(body.length);
    else headers['transfer-encoding'] = 'chunked';
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/notifications', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

// What may differ between two creates of the same notification: id, time, the provider's request id.
const comparable = ({ id: _id, createdAt: _createdAt, delivery, ...rest }: Record<string, unknown>) => ({
  ...rest,
  ...(delivery === undefined ? {} : { delivery: (delivery as { status: string }).status }),
});

describe('POST /notifications JSON bodies: the lean reader answers exactly like express.json', () => {
  const valid = '{"recipient":"ops","title":"t","message":"m é ✓","priority":1}';
  const bodies: Array<[string, Buffer]> = [
    ['a plain object', Buffer.from(valid)],
    ['leading JSON whitespace', Buffer.from(` \t\r\n${valid}`)],
    ['a byte order mark', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(valid)])],
    ['an empty body', Buffer.alloc(0)],
    ['whitespace only', Buffer.from('  \n')],
    ['a bare number', Buffer.from('42')],
    ['a string', Buffer.from('"ops"')],
    ['null', Buffer.from('null')],
    ['an array', Buffer.from('[1,2]')],
    ['broken JSON', Buffer.from('{"recipient":')],
    ['trailing garbage', Buffer.from(`${valid}x`)],
    ['invalid UTF-8 in a string', Buffer.concat([Buffer.from('{"recipient":"ops","message":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')])],
    ['an unknown field', Buffer.from('{"recipient":"ops","message":"m","token":"x"}')],
  ];
  for (const [name, body] of bodies) {
    it(`with ${name}`, async () => {
      for (const type of ['application/json', 'application/json; charset=utf-8', 'Application/JSON']) {
        const lean = await post(body, type, 'length');
        const generic = await post(body, type, 'chunked');
        expect(lean.status).toBe(generic.status);
        expect(comparable(lean.body)).toEqual(comparable(generic.body));
      }
    });
  }

  it('answers 400 naming the fields that hold bytes which are not UTF-8, with either reader', async () => {
    const body = Buffer.concat([
      Buffer.from('{"recipient":"ops","title":"ok","message":"caf'),
      Buffer.from([0xe9]),
      Buffer.from(' au lait'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}'),
    ]);
    for (const framing of ['length', 'chunked'] as const) {
      const res = await post(body, 'application/json', framing);

      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        error: 'The request body is not valid UTF-8',
        details: [{ path: 'body.message', message: 'holds bytes that are not valid UTF-8: send text as UTF-8' }],
      });
    }
    expect(await post(Buffer.from('{"recipient":"ops","message":"a real \uFFFD is text"}'), 'application/json', 'length')).toMatchObject({ status: 201 });
  });

  it('stores what it read', async () => {
    const res = await post(Buffer.from('{"recipient":"ops","message":"m é ✓"}'), 'application/json', 'length');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ recipient: 'ops', title: '', message: 'm é ✓', priority: 0 });
  });
});

describe('POST /notifications spelled otherwise', () => {
  it.each(['/notifications/', '/Notifications', '/NOTIFICATIONS', '//notifications'])(
    '%s never reaches the create handler past the create parser',
    async (path) => {
      const body = Buffer.concat([Buffer.from('{"recipient":"spelling","message":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
      // Byte for byte, past nock: it reads the target `//notifications` as a host name and would refuse it.
      const res = await sendRaw(port, { method: 'POST', target: path, headers: [['Content-Type', 'application/json']], body });

      expect(res.status).toBe(404);
    },
  );
});

describe('POST /notifications with a body cut short', () => {
  it('stores nothing when the client goes away mid-body, and keeps serving', async () => {
    const { connect } = await import('node:net');
    const accepted = once(server, 'connection') as Promise<[Socket]>;
    const socket = connect(port, '127.0.0.1');
    const [serverSide] = await accepted;
    const head = 'POST /notifications HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"recipient":"cut","mess';
    socket.write(head);
    // The server has read the head and the start of the body: the client goes away mid-body, not before it.
    await eventually(() => serverSide.bytesRead === Buffer.byteLength(head), 'the server to read the partial request');
    socket.destroy();
    await eventually(() => serverSide.destroyed, 'the server to see the client go');
    const after = await post(Buffer.from('{"recipient":"cut","message":"whole"}'), 'application/json', 'length');
    expect(after.status).toBe(201);
    const list = await new Promise<unknown[]>((resolve, reject) => {
      httpRequest({ host: '127.0.0.1', port, path: '/notifications/cut' }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown[]));
      })
        .on('error', reject)
        .end();
    });
    expect(list).toHaveLength(1);
  });
});
