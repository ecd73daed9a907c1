import { createServer, STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Express } from 'express';
import type { Logger } from './logger.js';

export interface ServeOptions {
  app: Express;
  port: number;
  host?: string;
  logger: Logger;
  /** Closes adapters (cloud sessions, files, streams) after the server stopped taking requests. */
  close?: () => Promise<void> | void;
  /** How long in-flight requests get before connections are cut. */
  graceMs?: number;
  /** Listen for SIGTERM/SIGINT and exit when done (entry files); off for embedded use. */
  handleSignals?: boolean;
  /** Limits on clients; the defaults suit a home server (see SERVER_LIMITS). */
  limits?: Partial<ServerLimits>;
}

/** How long a client may take and how many may connect at once. */
export interface ServerLimits {
  /** A client that has not sent its whole header block by then is cut off. */
  headersTimeoutMs: number;
  /** The whole request, body included (a 7 MB upload over a slow link fits). */
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  /** Open connections at once, event streams included; more are closed as they arrive. */
  maxConnections: number;
}

export const SERVER_LIMITS: ServerLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 120_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 1_000,
};

/** A listening server and the function that stops it gracefully. */
export interface RunningServer {
  server: Server;
  port: number;
  stop(): Promise<void>;
}

const CLIENT_ERRORS: Record<string, [status: number, body: string]> = {
  HPE_HEADER_OVERFLOW: [
    431,
    JSON.stringify({ error: 'Request headers or URL too long', solution: 'Send a shorter URL and fewer or smaller headers', code: 'HEADERS_TOO_LARGE' }),
  ],
  ERR_HTTP_REQUEST_TIMEOUT: [
    408,
    JSON.stringify({ error: 'Request took too long to arrive', solution: 'Send the headers and body without pauses', code: 'REQUEST_TIMEOUT' }),
  ],
  default: [
    400,
    JSON.stringify({
      error: 'Malformed HTTP request',
      solution: 'Send a valid HTTP/1.1 request; percent-encode non-ASCII characters in the URL',
      code: 'MALFORMED_REQUEST',
    }),
  ],
};

/**
 * Requests Node's parser refuses (bad bytes in the target, headers over the limit) never reach Express;
 * answer them with the common error body too instead of Node's empty 400.
 */
function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable || err.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const [status, body] = CLIENT_ERRORS[err.code ?? ''] ?? CLIENT_ERRORS.default!;
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** The error of a port another process holds: it names the port and what to do, and keeps Node's code and error. */
function portInUse(port: number, host: string, cause: NodeJS.ErrnoException): Error {
  const err = new Error(`port ${port} on ${host} is already in use (EADDRINUSE): stop the process that holds it or choose another PORT`, { cause });
  return Object.assign(err, { code: 'EADDRINUSE', port, host });
}

/** Listens, and stops gracefully: no new connections, in-flight requests finish, adapters close, bounded time. */
export async function serve(options: ServeOptions): Promise<RunningServer> {
  const { app, logger } = options;
  const graceMs = options.graceMs ?? 10_000;
  const limits = { ...SERVER_LIMITS, ...options.limits };
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // Node checks the two timeouts above on this interval (30 s by default): a slow client would outlive them.
      connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs),
    },
    app,
  );
  server.maxConnections = limits.maxConnections;
  server.on('clientError', answerClientError);
  const host = options.host ?? '127.0.0.1';
  server.listen(options.port, host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', (err: NodeJS.ErrnoException) => reject(err.code === 'EADDRINUSE' ? portInUse(options.port, host, err) : err));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  logger.info({ port, host }, 'listening');

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Keep-alive connections become idle as their last request finishes; close them as they do.
      server.closeIdleConnections();
      const sweep = setInterval(() => server.closeIdleConnections(), 50);
      const cut = setTimeout(() => server.closeAllConnections(), graceMs);
      cut.unref();
      sweep.unref();
      await options.close?.();
      await closed;
      clearTimeout(cut);
      clearInterval(sweep);
      logger.info('stopped');
    })();
    return stopping;
  };

  if (options.handleSignals) {
    const onSignal = (signal: NodeJS.Signals) => {
      logger.info({ signal }, 'shutting down');
      const force = setTimeout(() => {
        logger.error('shutdown took too long; exiting');
        process.exit(1);
      }, graceMs + 5_000);
      force.unref();
      stop().then(
        () => process.exit(0),
        (err: unknown) => {
          logger.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  }
  return { server, port, stop };
}
