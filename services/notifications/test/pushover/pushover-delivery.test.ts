import nock from 'nock';
import { afterEach, describe, expect, it } from 'vitest';
import { PushoverProvider } from '../../src/adapters/pushover/pushover.provider.js';
import type { PushMessage } from '../../src/domain/push-provider.js';
import { API_TOKEN, USER_KEY, accepted, interceptMessage, readForm, startLocalServer, type RawRequest } from './pushover-test-kit.js';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0x10, 0x80]);

function provider(apiUrl?: string): PushoverProvider {
  return new PushoverProvider({ userKey: USER_KEY, apiToken: API_TOKEN, apiUrl, timeoutMs: 2000 });
}

function message(overrides: Partial<PushMessage> = {}): PushMessage {
  return { title: 'Backup', message: 'Nightly backup finished', priority: 0, ...overrides };
}

describe('PushoverProvider.send, when Pushover accepts', () => {
  afterEach(() => nock.cleanAll());

  it('posts token, user, title and message and resolves with the request id', async () => {
    const sent = interceptMessage(accepted('req-1'));
    const pushover = provider();

    const receipt = await pushover.send(message());

    expect(receipt).toEqual({ request: 'req-1' });
    expect((await readForm(sent[0])).fields).toStrictEqual({
      token: API_TOKEN,
      user: USER_KEY,
      title: 'Backup',
      message: 'Nightly backup finished',
      priority: '0',
    });
    expect(pushover.status().lastSuccessAt).toEqual(expect.any(String));
    expect(pushover.status().lastError).toBeNull();
  });

  it('sends the creation time as timestamp, so a late delivery shows when it happened, and monospace when asked', async () => {
    const one = interceptMessage(accepted());
    await provider().send(message({ createdAt: '2026-11-24T08:00:05.900Z', monospace: true }));
    const two = interceptMessage(accepted());
    await provider().send(message({ html: true, monospace: true }));

    const [first, second] = await Promise.all([readForm(one[0]!), readForm(two[0]!)]);
    expect(first!.fields).toMatchObject({ timestamp: String(Date.parse('2026-11-24T08:00:05Z') / 1000), monospace: '1' });
    expect(second!.fields).toMatchObject({ html: '1' });
    expect(second!.fields).not.toHaveProperty('monospace');
  });

  it('sends priority 0 explicitly, although the library drops falsy fields', async () => {
    const sent = interceptMessage(accepted());

    await provider().send(message({ priority: 0 }));

    expect((await readForm(sent[0])).fields.priority).toBe('0');
  });

  it.each([-2, -1, 1] as const)('sends priority %i as given, without retry or expire', async (priority) => {
    const sent = interceptMessage(accepted());

    await provider().send(message({ priority }));

    const { fields } = await readForm(sent[0]);
    expect(fields.priority).toBe(String(priority));
    expect(fields).not.toHaveProperty('retry');
    expect(fields).not.toHaveProperty('expire');
  });

  it('sends priority 2 with retry 60 and expire 3600 by default and returns the receipt', async () => {
    const sent = interceptMessage(accepted('req-2', { receipt: 'rcpt-abc' }));

    const receipt = await provider().send(message({ priority: 2 }));

    expect(receipt).toEqual({ request: 'req-2', receipt: 'rcpt-abc' });
    expect((await readForm(sent[0])).fields).toMatchObject({ priority: '2', retry: '60', expire: '3600' });
  });

  it('keeps retry and expire given with a priority 2 message', async () => {
    const sent = interceptMessage(accepted('req-3', { receipt: 'rcpt-def' }));

    await provider().send({ ...message({ priority: 2 }), retry: 30, expire: 10800 });

    expect((await readForm(sent[0])).fields).toMatchObject({ retry: '30', expire: '10800' });
  });

  it('maps sound, url, urlTitle, html, ttl and device to Pushover field names', async () => {
    const sent = interceptMessage(accepted());

    await provider().send(message({ sound: 'siren', url: 'https://nas.local', urlTitle: 'Open NAS', html: true, ttl: 600, device: 'phone,tablet' }));

    expect((await readForm(sent[0])).fields).toMatchObject({
      sound: 'siren',
      url: 'https://nas.local',
      url_title: 'Open NAS',
      html: '1',
      ttl: '600',
      device: 'phone,tablet',
    });
  });

  it('sends an image attachment as the multipart part "attachment" with its bytes, name and type', async () => {
    const sent = interceptMessage(accepted());

    await provider().send(message({ attachment: { filename: 'door.png', contentType: 'image/png', data: PNG } }));

    expect(sent[0]?.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const form = await readForm(sent[0]);
    expect(form.files).toHaveLength(1);
    expect(form.files[0]).toMatchObject({ name: 'attachment', filename: 'door.png', contentType: 'image/png' });
    expect(form.files[0]?.data.equals(PNG)).toBe(true);
    expect(form.fields).toMatchObject({ message: 'Nightly backup finished', priority: '0' });
  });

  it('cannot be made to forge multipart headers through the attachment filename', async () => {
    const sent = interceptMessage(accepted());

    await provider().send(message({ attachment: { filename: 'a"\r\nContent-Type: text/html\r\n\r\nx.png', contentType: 'image/png\r\nX: y', data: PNG } }));

    const form = await readForm(sent[0]);
    expect(form.files).toHaveLength(1);
    expect(form.files[0]?.filename).not.toMatch(/["\r\n]/);
    expect(form.files[0]?.contentType).toBe('application/octet-stream');
    expect(form.files[0]?.data.equals(PNG)).toBe(true);
  });

  it('leaves the message object it is given untouched', async () => {
    interceptMessage(accepted());
    const original = message({ priority: 0, attachment: { filename: 'door.png', contentType: 'image/png', data: Buffer.from(PNG) } });
    const before = { ...original, attachment: { filename: 'door.png', contentType: 'image/png', data: Buffer.from(PNG) } };

    await provider().send(original);

    expect(original).toStrictEqual(before);
  });

  it('reaches an https API URL with a custom host, port and path prefix', async () => {
    const sent = interceptMessage(accepted('via-proxy'), 'https://push-proxy.test:8443', '/pushover/1/messages.json');

    const receipt = await provider('https://push-proxy.test:8443/pushover/').send(message());

    expect(receipt.request).toBe('via-proxy');
    expect(sent).toHaveLength(1);
  });
});

describe('PushoverProvider.send against a real http://127.0.0.1:port server', () => {
  it('posts to the custom API URL over plain http and reads its answer', async () => {
    const seen: Array<{ url: string | undefined; host: string | undefined; request: RawRequest }> = [];
    const server = await startLocalServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({ url: req.url, host: req.headers.host, request: { headers: req.headers, body: Buffer.concat(chunks) } });
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 1, request: 'local-1' }));
      });
    });
    try {
      const receipt = await provider(server.url).send(message({ priority: 0 }));

      expect(receipt).toEqual({ request: 'local-1' });
      expect(seen[0]?.url).toBe('/1/messages.json');
      expect(seen[0]?.host).toBe(new URL(server.url).host);
      expect((await readForm(seen[0]?.request)).fields).toMatchObject({ message: 'Nightly backup finished', priority: '0', token: API_TOKEN });
    } finally {
      await server.close();
    }
  });
});
