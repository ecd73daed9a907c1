import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ManualClock, systemClock } from '@homeops/common';
import { eventually } from '@homeops/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { lanEncryptionKey } from '../../src/adapters/meross/meross-lan-crypto.js';
import { LanCallError, MerossLanHttp, parseLanAddress, signedMessage, type LanCallRecord } from '../../src/adapters/meross/meross-lan-http.js';
import * as emulatorCrypto from '../emulator/lan-crypto.js';

const KEY = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
const UUID = '2301230123012301230148e1e9a1b2c3';
const MAC = '48:e1:e9:a1:b2:c3';
const md5 = (text: string) => createHash('md5').update(text).digest('hex');

type Handler = (body: string, req: IncomingMessage, res: ServerResponse) => void;
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve).closeAllConnections())));
});

async function device(handler: Handler): Promise<string> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handler(Buffer.concat(chunks).toString('utf8'), req, res));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Answers like a Meross device: the same messageId, GETACK/SETACK, or ERROR 5001 when the sign is not the account key's. */
function answer(body: string, res: ServerResponse, payload: unknown = { ok: true }): void {
  const { header } = JSON.parse(body) as { header: { messageId: string; timestamp: number; sign: string; method: string; namespace: string } };
  const good = md5(`${header.messageId}${KEY}${header.timestamp}`) === header.sign;
  const reply = {
    header: { ...header, method: good ? `${header.method}ACK` : 'ERROR' },
    payload: good ? payload : { error: { code: 5001, detail: 'sign error' } },
  };
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
}

describe('MerossLanHttp (POST http://<device>/config)', () => {
  it('posts the message signed with the account key to /config and hands back the payload of the answer', async () => {
    let seen: { url?: string | undefined; method?: string | undefined; body?: string } = {};
    const address = await device((body, req, res) => {
      seen = { url: req.url, method: req.method, body };
      answer(body, res, { all: { system: {} } });
    });
    const records: LanCallRecord[] = [];
    const http = new MerossLanHttp(1_000, systemClock, (r) => records.push(r));

    const payload = await http.call(address, signedMessage(KEY, address, 'GET', 'Appliance.System.All', {}, Date.now()));

    expect(payload).toEqual({ all: { system: {} } });
    expect(seen).toMatchObject({ url: '/config', method: 'POST' });
    expect(JSON.parse(seen.body!).header).toMatchObject({
      namespace: 'Appliance.System.All',
      method: 'GET',
      payloadVersion: 1,
      from: `http://${address}/config`,
    });
    expect(records).toEqual([{ address, namespace: 'Appliance.System.All', outcome: 'ok', ms: expect.any(Number) }]);
    expect(JSON.stringify(records)).not.toContain(KEY);
    http.close();
  });

  it('fails as refused-key on 5001 (a message signed with another key), and as device-error on any other ERROR', async () => {
    const address = await device((body, _req, res) => answer(body, res));
    const wrongCode = await device((body, _req, res) =>
      res.end(JSON.stringify({ header: { ...JSON.parse(body).header, method: 'ERROR' }, payload: { error: { code: 5000 } } })),
    );
    const http = new MerossLanHttp(1_000, systemClock, () => undefined);

    const wrongKey = await http
      .call(address, signedMessage('another-key', address, 'SET', 'Appliance.Control.ToggleX', {}, Date.now()))
      .catch((e: unknown) => e);
    const refused = await http.call(wrongCode, signedMessage(KEY, wrongCode, 'SET', 'Appliance.Control.ToggleX', {}, Date.now())).catch((e: unknown) => e);

    expect(wrongKey).toMatchObject({ kind: 'refused-key', code: 5001 });
    expect(refused).toMatchObject({ kind: 'device-error', code: 5000 });
    http.close();
  });

  it('gives up at its own deadline on the injected clock when the device never answers', async () => {
    let arrived = false;
    const address = await device(() => (arrived = true));
    const clock = new ManualClock();
    const http = new MerossLanHttp(3_000, clock, () => undefined);

    const call = http.call(address, signedMessage(KEY, address, 'GET', 'Appliance.System.All', {}, clock.now())).catch((e: unknown) => e);
    await eventually(() => arrived, 'the request at the device');
    clock.advance(3_000);

    expect(await call).toMatchObject({ kind: 'timeout', message: 'no answer within 3000 ms' });
    http.close();
  });

  it('fails as network when nothing listens, and as malformed when the answer is no Meross message', async () => {
    const closed = await device(() => undefined);
    await new Promise((resolve) => servers.pop()!.close(resolve));
    const html = await device((_body, _req, res) => res.end('<html>router login</html>'));
    const http = new MerossLanHttp(1_000, systemClock, () => undefined);

    const nothing = await http.call(closed, signedMessage(KEY, closed, 'GET', 'Appliance.System.All', {}, Date.now())).catch((e: unknown) => e);
    const router = await http.call(html, signedMessage(KEY, html, 'GET', 'Appliance.System.All', {}, Date.now())).catch((e: unknown) => e);

    expect(nothing).toBeInstanceOf(LanCallError);
    expect(nothing).toMatchObject({ kind: 'network', message: 'ECONNREFUSED' });
    expect(router).toMatchObject({ kind: 'malformed' });
    http.close();
  });

  it('speaks the encrypted variant both ways, as the emulator (after meross_lan) reads and writes it', async () => {
    const deviceKey = emulatorCrypto.lanEncryptionKey(UUID, KEY, MAC);
    const address = await device((body, _req, res) => {
      const message = JSON.parse(emulatorCrypto.decryptLanBody(body, deviceKey));
      const reply = { header: { ...message.header, method: 'GETACK' }, payload: { seen: message.header.namespace } };
      res.end(emulatorCrypto.encryptLanBody(JSON.stringify(reply), deviceKey));
    });
    const http = new MerossLanHttp(1_000, systemClock, () => undefined);

    const payload = await http.call(address, signedMessage(KEY, address, 'GET', 'Appliance.System.All', {}, Date.now()), lanEncryptionKey(UUID, KEY, MAC));

    expect(lanEncryptionKey(UUID, KEY, MAC)).toEqual(deviceKey);
    expect(payload).toEqual({ seen: 'Appliance.System.All' });
    http.close();
  });

  it('reads host and host:port addresses (80 by default) and refuses anything else', () => {
    expect(parseLanAddress('192.168.1.23')).toEqual({ host: '192.168.1.23', port: 80 });
    expect(parseLanAddress('127.0.4.5:41234')).toEqual({ host: '127.0.4.5', port: 41_234 });
    expect(parseLanAddress('plug.lan:80')).toEqual({ host: 'plug.lan', port: 80 });
    expect([parseLanAddress('http://x'), parseLanAddress('1.2.3.4:0'), parseLanAddress('1.2.3.4:70000')]).toEqual([null, null, null]);
  });
});
