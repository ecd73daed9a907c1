import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import Pushover from 'pushover-notifications';
import { describe, expect, it } from 'vitest';
import { startLocalServer } from './pushover-test-kit.js';

const require = createRequire(import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { dependencies: Record<string, string> };
const installed = (require('pushover-notifications/package.json') as { version: string }).version;

/** What the library sends for `fields` through its http branch, as raw bytes, and how it called back. */
async function capture(fields: Record<string, unknown>): Promise<{ body: string; path: string; callbackArgs: number }> {
  let body = '';
  let path = '';
  const server = await startLocalServer((req, res) => {
    path = req.url ?? '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('latin1')));
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":1,"request":"r"}'));
  });
  try {
    const url = new URL(server.url);
    const target = '/prefix/1/messages.json';
    const client = new Pushover({
      user: 'u'.repeat(30),
      token: 't'.repeat(30),
      onerror: () => undefined,
      // `href` as the adapter sets it: nock (no network but loopback) reads it, and the library's own is api.pushover.net.
      httpOptions: { hostname: url.hostname, host: url.host, port: Number(url.port), path: target, href: `${server.url}${target}`, proxy: server.url },
    });
    const callbackArgs = await new Promise<number>((resolve) => client.send({ ...fields }, (...args: unknown[]) => resolve(args.length)));
    return { body, path, callbackArgs };
  } finally {
    await server.close();
  }
}

// pushover-request.ts and to-pushover-fields.ts work around these behaviours of pushover-notifications 1.2.3. A newer
// version may fix or change them; if one of these tests fails after an upgrade, re-check those two files first.
describe('pushover-notifications is pinned to the version the adapter was written against', () => {
  it('is 1.2.3, exactly, in package.json and in node_modules', () => {
    expect(manifest.dependencies['pushover-notifications']).toBe('1.2.3');
    expect(installed).toBe('1.2.3');
  });

  it('sends plain http only through its proxy branch, to the path given in httpOptions', async () => {
    const { path } = await capture({ message: 'hi' });
    expect(path).toBe('/prefix/1/messages.json');
  });

  it('drops falsy fields (priority 0 as a number), which is why the adapter sends the priority as a string', async () => {
    const numeric = await capture({ message: 'hi', priority: 0 });
    const text = await capture({ message: 'hi', priority: '0' });
    expect(numeric.body).not.toContain('name="priority"');
    expect(text.body).toContain('name="priority"\r\n\r\n0');
  });

  it('glues the closing boundary onto the last value without a CRLF, which is why the adapter ends it with one', async () => {
    const { body } = await capture({ message: 'last' });
    expect(body).toMatch(/\r\n\r\nlast--[a-z0-9]+--\r\n$/);
  });

  it('calls back with (error, data, response) once the answer ended', async () => {
    expect((await capture({ message: 'hi' })).callbackArgs).toBe(3);
  });
});
