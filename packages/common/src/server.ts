import { STATUS_CODES, type Server } from 'node:http';
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
}

/** A listening server and the function that stops it gracefully. */
export interface RunningServer {
  server: Server;
  port: number;
  stop(): Promise<void>;
}

/**
 * Requests Node's parser refuses (bad bytes in the target, headers over the limit) never reach Express;
 * answer them with the common error body too instead of Node's empty 400.
 */
function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable || err.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? 431 : 400;
  const body = JSON.stringify(
    tooLarge
      ? { error: 'Request headers or URL too long', solution: 'Send a shorter URL and fewer or smaller headers', code: 'HEADERS_TOO_LARGE' }
      : {
          error: 'Malformed HTTP request',
          solution: 'Send a valid HTTP/1.1 request; percent-encode non-ASCII characters in the URL',
          code: 'MALFORMED_REQUEST',
        },
  );
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Listens, and stops gracefully: no new connections, in-flight requests finish, adapters close, bounded time. */
export async function serve(options: ServeOptions): Promise<RunningServer> {
  const { app, logger } = options;
  const graceMs = options.graceMs ?? 10_000;
  const server = app.listen(options.port, options.host ?? '0.0.0.0');
  server.on('clientError', answerClientError);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  logger.info({ port, host: options.host ?? '0.0.0.0' }, 'listening');

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
