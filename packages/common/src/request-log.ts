import { randomUUID } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import type { Logger } from './logger.js';

const SAFE_REQUEST_ID = /^[\w.:@-]{1,128}$/;

/** The id of the request this response answers (set by requestLog). */
export function requestIdOf(res: Response): string | undefined {
  return (res.locals as { requestId?: string }).requestId;
}

/**
 * Gives each request an id (a caller's sane X-Request-Id is kept) and writes one access-log line of plain fields.
 * The line is built from scalars on purpose: redaction over raw request objects cost more than the handlers.
 */
export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    (res.locals as { requestId?: string }).requestId = id;
    res.setHeader('X-Request-Id', id);
    let logged = false;
    const log = () => {
      if (logged) return;
      logged = true;
      const status = res.writableFinished ? res.statusCode : 499;
      const line = {
        reqId: id,
        method: req.method,
        url: req.originalUrl,
        status,
        ms: Number(process.hrtime.bigint() - started) / 1e6,
      };
      if (status >= 500) logger.error(line, 'request failed');
      else if (status >= 400) logger.warn(line, 'request completed');
      else logger.info(line, 'request completed');
    };
    res.once('finish', log);
    res.once('close', log);
    next();
  };
}
