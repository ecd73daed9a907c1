import { createDecipheriv, createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { readForm, startLocalServer, type ParsedForm } from './pushover-test-kit.js';

/** Pushover's limits on the value as sent, which for an encrypted field is the base64 ciphertext. */
const LIMITS: Record<string, number> = { message: 1024, title: 250, url: 512 };
const ENCRYPTED_FIELDS = ['message', 'title', 'url'] as const;

/** Decrypts one field as a Pushover app would: base64(IV‖AES-256-CBC(gzip)‖HMAC-SHA256(IV‖ciphertext)); throws why not. */
export function decryptField(value: string, keyHex: string): string {
  const key = Buffer.from(keyHex, 'hex');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(value) || value.length % 4 !== 0) throw new Error('not base64');
  const raw = Buffer.from(value, 'base64');
  if (raw.length < 16 + 16 + 32 || (raw.length - 48) % 16 !== 0) throw new Error('not IV, whole blocks and a MAC');
  const iv = raw.subarray(0, 16);
  const ciphertext = raw.subarray(16, raw.length - 32);
  const mac = raw.subarray(raw.length - 32);
  const expected = createHmac('sha256', key)
    .update(raw.subarray(0, raw.length - 32))
    .digest();
  if (!timingSafeEqual(mac, expected)) throw new Error('wrong MAC');
  const decipher = createDecipheriv('aes-256-cbc', key, iv);
  const gzip = Buffer.concat([decipher.update(ciphertext), decipher.final()]);
  return new TextDecoder('utf-8', { fatal: true }).decode(gunzipSync(gzip));
}

/** What one encrypted request carried, decrypted; absent fields were not sent. */
export interface Decrypted {
  message: string;
  title: string;
  url?: string;
  form: ParsedForm;
}

/** Why an encrypted recipient's request is refused, or undefined when it is what a Pushover app can show. */
function problemOf(form: ParsedForm, keyHex: string): string | undefined {
  const { fields } = form;
  if (fields.encrypted !== '1') return 'plaintext to a recipient with end-to-end encryption';
  if (fields.title === undefined) return 'an encrypted message needs a title';
  if (fields.url_title !== undefined) return 'url_title cannot be sent encrypted';
  for (const name of ENCRYPTED_FIELDS) {
    const value = fields[name];
    if (value === undefined) continue;
    if (value.length > LIMITS[name]!) return `${name} is longer than ${LIMITS[name]} characters`;
    try {
      decryptField(value, keyHex);
    } catch (error) {
      return `${name} does not decrypt: ${(error as Error).message}`;
    }
  }
  return undefined;
}

/**
 * Pushover's messages endpoint on 127.0.0.1 for users with (`keys`) and without encryption: an encrypted user's request
 * is decrypted with their key and refused (400) when it is plaintext, has a wrong MAC, an over-limit field, no title or a
 * url_title. Other endpoints (validate, sounds) answer as an accepting Pushover.
 */
export async function startFakeE2eePushover(options: { token: string; users: string[]; keys: Record<string, string> }) {
  const received: ParsedForm[] = [];
  const decrypted: Decrypted[] = [];
  const refused: string[] = [];
  const answer = (res: ServerResponse, status: number, body: object) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const handle = (req: IncomingMessage, res: ServerResponse, form: ParsedForm) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/1/users/validate.json') return answer(res, 200, { status: 1, devices: [], request: randomUUID() });
    if (path === '/1/sounds.json') return answer(res, 200, { status: 1, sounds: { pushover: 'Pushover (default)' }, request: randomUUID() });
    if (path !== '/1/messages.json') return answer(res, 404, { status: 0, errors: ['not found'] });
    received.push(form);
    const { user = '', token } = form.fields;
    if (token !== options.token) return answer(res, 400, { status: 0, errors: ['application token is invalid'] });
    if (!options.users.includes(user) && !(user in options.keys)) return answer(res, 400, { status: 0, errors: ['user key is invalid'] });
    const keyHex = options.keys[user];
    if (keyHex === undefined) {
      if (form.fields.encrypted !== undefined) return answer(res, 400, { status: 0, errors: ['this user has no encryption key'] });
      return answer(res, 200, { status: 1, request: randomUUID() });
    }
    const problem = problemOf(form, keyHex);
    if (problem) {
      refused.push(problem);
      return answer(res, 400, { status: 0, errors: [problem], request: randomUUID() });
    }
    const { message = '', title = '', url } = form.fields;
    decrypted.push({ message: decryptField(message, keyHex), title: decryptField(title, keyHex), ...(url ? { url: decryptField(url, keyHex) } : {}), form });
    return answer(res, 200, { status: 1, request: randomUUID() });
  };
  const server = await startLocalServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const query = Object.fromEntries(new URL(req.url ?? '/', 'http://x').searchParams);
      const form: Promise<ParsedForm> = (req.headers['content-type'] ?? '').startsWith('multipart/')
        ? readForm({ headers: req.headers, body })
        : Promise.resolve({ fields: Object.fromEntries(new URLSearchParams(body.toString('utf8'))), files: [] });
      void form.then(
        (parsed) => handle(req, res, { ...parsed, fields: { ...query, ...parsed.fields } }),
        () => answer(res, 400, { status: 0, errors: ['unreadable form'] }),
      );
    });
  });
  return { url: server.url, received, decrypted, refused, close: () => server.close() };
}
