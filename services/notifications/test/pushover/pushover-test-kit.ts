import { createServer, type IncomingHttpHeaders, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import busboy from 'busboy';
import nock from 'nock';
import { expect } from 'vitest';

// Shaped like real Pushover keys (30 alphanumerics) so a leak would be easy to spot.
export const USER_KEY = 'uQiRzpo4DXghDmr9QzzfQu27cmVRsG';
export const API_TOKEN = 'azGDORePK8gMaC0QOYAMyEEuzJnyUi';
export const PUSHOVER = 'https://api.pushover.net';

/** One request as it went over the wire. */
export interface RawRequest {
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** The form as a strict multipart parser (busboy, as servers use) reads it. */
export interface ParsedForm {
  fields: Record<string, string>;
  files: Array<{ name: string; filename: string; contentType: string; data: Buffer }>;
}

/** Parses a captured body with busboy; rejects on a malformed body (e.g. a missing final delimiter). */
export function readForm(request: RawRequest | undefined): Promise<ParsedForm> {
  if (!request) return Promise.reject(new Error('no request was captured'));
  return new Promise((resolve, reject) => {
    const form: ParsedForm = { fields: {}, files: [] };
    const parser = busboy({ headers: request.headers });
    parser.on('field', (name, value) => (form.fields[name] = value));
    parser.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => form.files.push({ name, filename: info.filename ?? '', contentType: info.mimeType, data: Buffer.concat(chunks) }));
    });
    parser.on('error', reject);
    parser.on('close', () => resolve(form));
    parser.end(request.body);
  });
}

// nock hands over bodies that are not valid UTF-8 hex-encoded.
function toBuffer(body: string): Buffer {
  return /^([0-9a-f]{2})+$/.test(body) ? Buffer.from(body, 'hex') : Buffer.from(body, 'utf8');
}

/** Intercepts one POST /1/messages.json at `base`, answers as given, and records what was sent. */
export function interceptMessage(
  reply: { status: number; body: string | object; headers?: Record<string, string> },
  base = PUSHOVER,
  path = '/1/messages.json',
): RawRequest[] {
  const captured: RawRequest[] = [];
  nock(base)
    .post(path)
    .reply(function (_uri, body) {
      captured.push({ headers: this.req.headers as IncomingHttpHeaders, body: toBuffer(String(body)) });
      return [reply.status, reply.body, reply.headers ?? {}];
    });
  return captured;
}

/** Pushover's answer to an accepted message. */
export const accepted = (request = '5042853c-402d-4a18-abcb-168734a801de', extra: object = {}) => ({
  status: 200,
  body: { status: 1, request, ...extra },
});

/** A real HTTP server on 127.0.0.1 and a random port, for what nock cannot show (sockets, concurrency). */
export async function startLocalServer(handler: RequestListener): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The error `promise` rejects with, asserted to be a `type`. */
export async function rejectionOf<E extends Error>(promise: Promise<unknown>, type: new (...args: never[]) => E): Promise<E> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(type);
  return error as E;
}
