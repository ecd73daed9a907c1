import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { scalarLogger, type Logger } from './logger.js';

const SAFE_REQUEST_ID = /^[\w.:@-]{1,128}$/;

/** The id of the request this response answers (set by requestLog). */
export function requestIdOf(res: Response): string | undefined {
  return (res.locals as { requestId?: string }).requestId;
}

/** Told of every answered request, with the status the access log writes and the time it took. */
export type AnsweredListener = (req: Request, status: number, ms: number) => void;

/**
 * Gives each request an id (a caller's sane X-Request-Id is kept) and writes one access-log line of plain fields.
 * The line is built from scalars on purpose: redaction over raw request objects cost more than the handlers, and a
 * line of scalars under these fixed keys is one redaction leaves as it is, so it skips that pass (scalarLogger).
 */
export function requestLog(logger: Logger, onAnswered?: AnsweredListener): RequestHandler {
  const lines = scalarLogger(logger);
  return (req, res, next) => {
    const started = performance.now();
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    (res.locals as { requestId?: string }).requestId = id;
    res.setHeader('X-Request-Id', id);
    // 'close' follows 'finish' on a completed response and also comes alone for an aborted one: one listener
    // (and 'close' comes once, so no once() wrapper).
    res.on('close', () => {
      const status = res.writableFinished ? res.statusCode : 499;
      const ms = performance.now() - started;
      // The metrics ride on the access log's one listener and clock reading instead of adding their own.
      onAnswered?.(req, status, ms);
      const level = status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      const line = {
        reqId: id,
        method: req.method,
        url: req.originalUrl,
        status,
        ms,
      };
      lines[level](line, status >= 500 ? 'request failed' : 'request completed');
    });
    next();
  };
}
