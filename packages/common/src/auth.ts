import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import { AuthThrottle } from './auth-throttle.js';
import { AppError } from './errors.js';

const digest = (value: string) => createHash('sha256').update(value).digest();

function presentedKey(authorization: string | undefined, apiKeyHeader: string | string[] | undefined): string | undefined {
  if (typeof apiKeyHeader === 'string' && apiKeyHeader.length > 0) return apiKeyHeader;
  const match = /^Bearer\s+(.+)$/i.exec(authorization ?? '');
  return match?.[1]?.trim();
}

/** Whether this request presented the right key; undefined when the service has no key (everything is visible). */
export function keyAccepted(res: Response): boolean | undefined {
  return (res.locals as { keyAccepted?: boolean }).keyAccepted;
}

/**
 * Requires the API key on every path but the public ones; compares digests in constant time. An address that sent
 * too many wrong keys gets 429 until its window ends, whatever it sends, so the answer tells a guesser nothing.
 */
export function requireApiKey(apiKey: string, publicPaths: readonly string[], throttle = new AuthThrottle()): RequestHandler {
  const expected = digest(apiKey);
  // Exact paths and their subpaths; '/' only as itself (or '//x' would pass as public).
  const isPublic = (path: string) => publicPaths.some((p) => path === p || (p !== '/' && path.startsWith(`${p}/`)));
  return (req, res, next) => {
    const address = req.socket.remoteAddress ?? 'unknown';
    const key = presentedKey(req.headers.authorization, req.headers['x-api-key']);
    const wait = throttle.blockedFor(address);
    const accepted = wait === 0 && key !== undefined && timingSafeEqual(digest(key), expected);
    if (!accepted && wait === 0 && key !== undefined) throttle.recordFailure(address);
    (res.locals as { keyAccepted?: boolean }).keyAccepted = accepted;
    if (accepted || isPublic(req.path)) return next();
    if (wait > 0) throw new AppError('TOO_MANY_AUTH_FAILURES', undefined, { retryAfterSeconds: wait });
    throw new AppError('UNAUTHORIZED');
  };
}
