import { connect } from 'node:net';
import { expect } from 'vitest';

/** A request sent byte for byte: the target is not normalized (`..`, `%2f`, raw UTF-8 and bad escapes reach the server). */
export interface RawRequest {
  method: string;
  /** Request target as sent on the request line; a Buffer for bytes a string cannot carry. */
  target: string | Buffer;
  headers?: Array<[string, string]>;
  body?: Buffer | string;
}

/** What came back; `streaming` when the answer was an event stream (cut after its headers). */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  streaming: boolean;
}

function decodeChunked(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = Number.parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

function parseHead(head: string): { status: number; headers: Record<string, string> } {
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers };
}

/** Sends one request on a fresh connection (Connection: close) and resolves with the answer; rejects after `timeoutMs`. */
export function sendRaw(port: number, request: RawRequest, timeoutMs = 5_000): Promise<RawResponse> {
  const body = request.body === undefined ? undefined : Buffer.from(request.body);
  const headers: Array<[string, string]> = [['Host', `127.0.0.1:${port}`], ['Connection', 'close'], ...(request.headers ?? [])];
  const hasLength = headers.some(([name]) => /^(content-length|transfer-encoding)$/i.test(name));
  if (body !== undefined && !hasLength) headers.push(['Content-Length', String(body.length)]);
  const head = Buffer.concat([
    Buffer.from(`${request.method} `),
    Buffer.from(request.target),
    Buffer.from(` HTTP/1.1\r\n${headers.map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n`),
  ]);

  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    let settled = false;
    const timer = setTimeout(() => finish(new Error(`no complete answer within ${timeoutMs} ms`)), timeoutMs);

    function parsed(): RawResponse | undefined {
      const data = Buffer.concat(chunks);
      const headEnd = data.indexOf('\r\n\r\n');
      if (headEnd < 0) return undefined;
      const { status, headers: responseHeaders } = parseHead(data.subarray(0, headEnd).toString('latin1'));
      const rest = data.subarray(headEnd + 4);
      if ((responseHeaders['content-type'] ?? '').startsWith('text/event-stream')) {
        return { status, headers: responseHeaders, body: rest, streaming: true };
      }
      if (request.method === 'HEAD' || status === 204 || status === 304) return { status, headers: responseHeaders, body: Buffer.alloc(0), streaming: false };
      const chunked = /chunked/i.test(responseHeaders['transfer-encoding'] ?? '');
      const length = responseHeaders['content-length'];
      if (length !== undefined && rest.length < Number(length)) return undefined;
      if (chunked && !rest.includes('0\r\n\r\n')) return undefined;
      return { status, headers: responseHeaders, body: chunked ? decodeChunked(rest) : rest, streaming: false };
    }

    function finish(error?: Error): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const response = parsed();
      if (response) resolve(response);
      else reject(error ?? new Error('connection closed before a complete answer'));
    }

    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      const response = parsed();
      // Complete answers end the exchange early: event streams never end, and the server may not close at once.
      if (response?.streaming || (response && (request.method === 'HEAD' || response.headers['content-length'] !== undefined))) finish();
    });
    socket.on('end', () => finish());
    socket.on('close', () => finish());
    // A server that answers before reading the whole body (413) resets the connection while we still write.
    socket.on('error', (error) => finish(error));
    socket.write(head);
    if (body !== undefined && body.length > 0) socket.write(body);
  });
}

/** Percent-encodes every byte (valid UTF-8 or not). */
export function percentEncodeBytes(bytes: Uint8Array): string {
  return [...bytes].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('');
}

/** Asserts the common `{ error, solution, code }` JSON body of a failure. */
export function expectErrorBody(response: RawResponse, context: string): void {
  expect(response.headers['content-type'], `${context}: content type of a ${response.status}`).toMatch(/^application\/json/);
  let body: unknown;
  try {
    body = JSON.parse(response.body.toString('utf8'));
  } catch {
    throw new Error(`${context}: the ${response.status} body is not JSON: ${response.body.toString('utf8').slice(0, 200)}`);
  }
  expect(body, `${context}: body of a ${response.status}`).toMatchObject({
    error: expect.any(String),
    solution: expect.any(String),
    code: expect.stringMatching(/^[A-Z_]+$/),
  });
}
