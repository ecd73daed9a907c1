import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, isAppError } from './errors.js';
import type { ErrorBody } from './error-body.js';
import type { Logger } from './logger.js';
import { requestIdOf } from './request-log.js';

interface HttpLikeError {
  status?: number;
  statusCode?: number;
  type?: string;
  expose?: boolean;
  message?: string;
}

/** Turns errors raised by Express and its parsers (http-errors) into our codes. */
function toAppError(err: unknown): AppError {
  if (isAppError(err)) return err;
  const e = (err ?? {}) as HttpLikeError;
  const status = e.status ?? e.statusCode;
  if (e.type === 'entity.parse.failed') return new AppError('MALFORMED_JSON');
  if (status === 413) return new AppError('PAYLOAD_TOO_LARGE');
  if (status === 415) return new AppError('UNSUPPORTED_MEDIA_TYPE', e.expose ? e.message : undefined);
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new AppError('VALIDATION_FAILED', e.expose && e.message ? e.message : 'Bad request', {
      solution: 'Check the path, query and body of the request',
    });
  }
  return new AppError('INTERNAL', undefined, { cause: err });
}

/** JSON 404 for every path no router answered. */
export const notFoundHandler: RequestHandler = (req) => {
  throw new AppError('ROUTE_NOT_FOUND', `No route for ${req.method} ${req.path}`);
};

/** The one place that writes a failure: the common body, the status from the table, no internals. */
export const createErrorHandler =
  (logger: Logger): ErrorRequestHandler =>
  (err, _req, res, _next) => {
    const appError = toAppError(err);
    if (appError.code === 'INTERNAL') {
      logger.error({ err, reqId: requestIdOf(res) }, 'unexpected error');
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const body: ErrorBody = { error: appError.message, solution: appError.solution, code: appError.code };
    if (appError.details) body.details = appError.details;
    if (appError.retryAfterSeconds !== undefined) {
      res.setHeader('Retry-After', String(Math.max(1, Math.ceil(appError.retryAfterSeconds))));
    }
    res.status(appError.status).json(body);
  };
