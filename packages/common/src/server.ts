import type { Server } from 'node:http';
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

/** Listens, and stops gracefully: no new connections, in-flight requests finish, adapters close, bounded time. */
export async function serve(options: ServeOptions): Promise<RunningServer> {
  const { app, logger } = options;
  const graceMs = options.graceMs ?? 10_000;
  const server = app.listen(options.port, options.host ?? '0.0.0.0');
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
      server.closeIdleConnections();
      const cut = setTimeout(() => server.closeAllConnections(), graceMs);
      cut.unref();
      await options.close?.();
      await closed;
      clearTimeout(cut);
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
