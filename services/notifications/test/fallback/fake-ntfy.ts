import type { IncomingMessage, ServerResponse } from 'node:http';
import { startLocalServer } from '../pushover/pushover-test-kit.js';

/** One publish the fake ntfy server received, its Title decoded as ntfy decodes it. */
export interface NtfyPublish {
  topic: string;
  title: string | undefined;
  priority: string | undefined;
  tags: string | undefined;
  click: string | undefined;
  authorization: string | undefined;
  body: string;
}

/** An RFC 2047 encoded word (`=?UTF-8?B?…?=` or `?Q?`) decoded; any other text as it is. */
export function decodeEncodedWord(value: string): string {
  const match = /^=\?utf-8\?([bq])\?(.*)\?=$/i.exec(value.trim());
  if (!match) return value;
  const [, kind, text] = match;
  if (kind!.toLowerCase() === 'b') return Buffer.from(text!, 'base64').toString('utf8');
  const bytes = text!.replace(/_/g, ' ').replace(/=([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

const header = (req: IncomingMessage, name: string) => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * ntfy's publish endpoint (`POST /<topic>`, message as body, Title/Priority/Tags/Click headers) on 127.0.0.1. It
 * accepts priorities 1 to 5 only, asks for `Bearer <token>` when given one, and answers `failures` 503s first.
 */
export async function startFakeNtfy(options: { token?: string; failures?: number } = {}) {
  const published: NtfyPublish[] = [];
  let failures = options.failures ?? 0;
  const server = await startLocalServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const answer = (status: number, body: object) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      const topic = (req.url ?? '/').slice(1);
      if (req.method !== 'POST' || !/^[-_A-Za-z0-9]{1,64}$/.test(topic)) return answer(404, { code: 40401, error: 'page not found' });
      if (options.token !== undefined && header(req, 'authorization') !== `Bearer ${options.token}`) {
        return answer(401, { code: 40101, http: 401, error: 'unauthorized' });
      }
      const priority = header(req, 'priority');
      if (priority !== undefined && !/^[1-5]$/.test(priority)) return answer(400, { code: 40007, error: 'invalid priority' });
      if (failures > 0) {
        failures -= 1;
        return answer(503, { code: 50301, error: 'try again' });
      }
      const title = header(req, 'title');
      published.push({
        topic,
        title: title === undefined ? undefined : decodeEncodedWord(title),
        priority,
        tags: header(req, 'tags'),
        click: header(req, 'click'),
        authorization: header(req, 'authorization'),
        body: Buffer.concat(chunks).toString('utf8'),
      });
      answer(200, { id: `m${published.length}`, time: Math.floor(Date.now() / 1000), event: 'message', topic });
    });
  });
  return { url: server.url, published, close: () => server.close() };
}
