import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import MerossCloudLibrary from 'meross-cloud';
import { afterEach, describe, expect, it } from 'vitest';

// meross-cloud@3.1.2 requires `request` when it loads; pnpm-workspace.yaml overrides it with Cypress's maintained
// fork, so the deprecated request@2.88.2 and its form-data@2.3.3 and tough-cookie@2.5.0 are not installed at all.
const fromLibrary = createRequire(createRequire(import.meta.url).resolve('meross-cloud'));
const requestEntry = fromLibrary.resolve('request');
const fromRequest = createRequire(requestEntry);
const versionOf = (require: NodeRequire, name: string) => (require(`${name}/package.json`) as { name: string; version: string }).version;

/** `a.b.c` at least `min` (numeric parts, no pre-releases here). */
function atLeast(version: string, min: string): boolean {
  const [a, b] = [version, min].map((v) => v.split('.').map(Number));
  for (let i = 0; i < 3; i++) if (a![i] !== b![i]) return a![i]! > b![i]!;
  return true;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve).closeAllConnections())));
});

describe('the request package under meross-cloud', () => {
  it("is Cypress's maintained fork, with form-data and tough-cookie at versions past their advisories", () => {
    expect((fromLibrary('request/package.json') as { name: string }).name).toBe('@cypress/request');
    expect(atLeast(versionOf(fromLibrary, 'request'), '4.0.1')).toBe(true);
    // CVE-2025-7783 is fixed in form-data 2.5.4 (and 4.0.4), CVE-2023-26136 in tough-cookie 4.1.3.
    expect(atLeast(versionOf(fromRequest, 'form-data'), '4.0.4')).toBe(true);
    expect(atLeast(versionOf(fromRequest, 'tough-cookie'), '4.1.3')).toBe(true);
  });

  it("serves the library's own call (sendMessageHttp, its one path to request we never enable) as request did", async () => {
    const received: Array<{ contentType: string | undefined; body: unknown }> = [];
    const server = createServer((req, res) => {
      let text = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (text += chunk));
      req.on('end', () => {
        received.push({ contentType: req.headers['content-type'], body: JSON.parse(text) });
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ header: { method: 'GETACK' }, payload: { ok: 1 } }));
      });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const cloud = new MerossCloudLibrary({ email: 'user@example.com', password: 'not-used', timeout: 5_000 }) as unknown as {
      devices: Record<string, { handleMessage(body: unknown): void }>;
      sendMessageHttp(dev: { uuid: string }, ip: string, payload: unknown, callback: (err: Error | null) => void): void;
    };
    const handled: unknown[] = [];
    cloud.devices.u1 = { handleMessage: (body) => handled.push(body) };

    const error = await new Promise<Error | null>((resolve) =>
      cloud.sendMessageHttp({ uuid: 'u1' }, `127.0.0.1:${(server.address() as AddressInfo).port}`, { header: { method: 'GET' } }, resolve),
    );
    await new Promise((resolve) => setImmediate(resolve));

    expect(error).toBeNull();
    expect(received).toEqual([{ contentType: 'application/json', body: { header: { method: 'GET' } } }]);
    expect(handled).toEqual([{ header: { method: 'GETACK' }, payload: { ok: 1 } }]);
  });
});
