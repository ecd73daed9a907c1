import { connect, type Socket } from 'node:net';
import { eventually } from './wait.js';

/** An event-stream client on a bare socket: it reads (or, paused, never reads) and keeps every byte it got. */
export interface RawStream {
  socket: Socket;
  text(): string;
  readonly closed: boolean;
  /** Resolves once the text matches, rejects after `timeoutMs`. */
  waitFor(pattern: string | RegExp, timeoutMs?: number): Promise<void>;
}

/** Opens `GET path` as an event stream; `read: false` connects and never reads a byte (a stalled consumer). */
export function openRawStream(
  port: number,
  path: string,
  options: { headers?: Record<string, string>; read?: boolean; localAddress?: string } = {},
): Promise<RawStream> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, ...(options.localAddress ? { localAddress: options.localAddress } : {}) });
    let text = '';
    let closed = false;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('close', () => (closed = true));
    socket.on('error', () => undefined);
    socket.once('connect', () => {
      const headers = Object.entries({ Accept: 'text/event-stream', ...options.headers }).map(([k, v]) => `${k}: ${v}\r\n`);
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${headers.join('')}\r\n`);
      if (options.read === false) socket.pause();
      resolve({
        socket,
        text: () => text,
        get closed() {
          return closed;
        },
        waitFor: async (pattern, timeoutMs = 5_000) => {
          const matches = () => (typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text));
          await eventually(matches, { what: `stream ${path} to show ${String(pattern)}`, timeoutMs }).catch((err: Error) => {
            throw new Error(`${err.message}; got ${text.slice(-300)}`);
          });
        },
      });
    });
    socket.once('error', reject);
  });
}
