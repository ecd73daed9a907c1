import { AppError } from '@homeops/common';
import type { RequestHandler } from 'express';

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * A body that is not JSON would otherwise be ignored, and `curl -d '{"channel":2}'` (form-encoded by default)
 * would act on channel 0: refuse it instead.
 */
export const requireJsonBody: RequestHandler = (req, _res, next) => {
  if (hasBody(req.headers) && !req.is('application/json')) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported content type: the body must be JSON', {
      solution: 'Send the body with "Content-Type: application/json" (curl: -H "Content-Type: application/json")',
    });
  }
  next();
};
