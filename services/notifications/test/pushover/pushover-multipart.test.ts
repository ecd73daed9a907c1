import type { IncomingHttpHeaders } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { PushoverProvider } from '../../src/adapters/pushover/pushover.provider.js';
import { chooseBoundary, postMessage, resolveEndpoint } from '../../src/adapters/pushover/pushover-request.js';
import { startFakePushoverApi } from './fake-pushover-api.js';
import { API_TOKEN, USER_KEY, startLocalServer } from './pushover-test-kit.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A local Pushover stand-in that keeps the headers and raw body of every message. */
async function captureServer(): Promise<{ url: string; requests: Array<{ headers: IncomingHttpHeaders; body: string }> }> {
  const requests: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  const server = await startLocalServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('latin1')));
    req.on('end', () => {
      requests.push({ headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":1,"request":"r"}');
    });
  });
  closers.push(() => server.close());
  return { url: server.url, requests };
}

const boundaryOf = (headers: IncomingHttpHeaders) => /boundary=(.+)$/.exec(headers['content-type'] ?? '')?.[1];

describe('multipart messages to Pushover', () => {
  it('draw a fresh 192-bit boundary from crypto for every message', async () => {
    const server = await captureServer();
    const pushover = new PushoverProvider({ userKey: USER_KEY, apiToken: API_TOKEN, apiUrl: server.url, timeoutMs: 2_000 });

    await pushover.send({ title: 't', message: 'one', priority: 0 });
    await pushover.send({ title: 't', message: 'two', priority: 0 });

    const [first, second] = server.requests.map((r) => boundaryOf(r.headers));
    expect(first).toMatch(/^homeops-[0-9a-f]{48}$/);
    expect(second).toMatch(/^homeops-[0-9a-f]{48}$/);
    expect(first).not.toBe(second);
  });

  it('carry a message whose lines imitate a delimiter and a forged part whole, without a forged field', async () => {
    const fake = await startFakePushoverApi({ token: API_TOKEN, users: { [USER_KEY]: [] } });
    closers.push(() => fake.close());
    const pushover = new PushoverProvider({ userKey: USER_KEY, apiToken: API_TOKEN, apiUrl: fake.url, timeoutMs: 2_000 });
    const forged = (boundary: string) =>
      `line one\r\n--${boundary}\r\nContent-Disposition: form-data; name="user"\r\n\r\nuFORGEDFORGEDFORGEDFORGEDFORGED\r\n--${boundary}\r\n` +
      `Content-Disposition: form-data; name="priority"\r\n\r\n2\r\n--${boundary}--\r\nlast line`;
    const message = [forged('homeops-0123456789abcdef0123456789abcdef0123456789abcdef'), forged('--'), forged('')].join('\r\n');

    await pushover.send({ title: 'Door', message, priority: 0 });

    const sent = fake.calls.filter((c) => c.endpoint === 'messages');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.fields).toStrictEqual({ token: API_TOKEN, user: USER_KEY, title: 'Door', message, priority: '0' });
  });

  it('choose a boundary again when a value or the file holds the one drawn', () => {
    const draws = ['homeops-aaaa', 'homeops-bbbb', 'homeops-cccc', 'homeops-dddd'];
    const fields = {
      message: 'text\r\n--homeops-aaaa\r\n',
      file: { name: 'a.png', type: 'image/png', data: Buffer.from('\x89PNG homeops-bbbb', 'latin1') },
      title: 'homeops-cccc',
    };

    expect(chooseBoundary(fields, () => draws.shift()!)).toBe('homeops-dddd');
  });

  it.each([
    ['name', { name: 'a.png"\r\nContent-Type: text/html', type: 'image/png' }],
    ['type', { name: 'a.png', type: 'image/png\r\nX-Forged: 1' }],
  ])('refuse an attachment %s with a line break, before sending anything', async (_part, file) => {
    const server = await captureServer();

    const sending = postMessage(
      { userKey: USER_KEY, apiToken: API_TOKEN },
      resolveEndpoint(server.url),
      { message: 'm', file: { ...file, data: Buffer.from('x') } },
      new AbortController().signal,
    );

    await expect(sending).rejects.toThrow(/line break or quote/);
    expect(server.requests).toHaveLength(0);
  });
});
