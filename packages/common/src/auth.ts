import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { AppError } from './errors.js';

const digest = (value: string) => createHash('sha256').update(value).digest();

function presentedKey(authorization: string | undefined, apiKeyHeader: string | string[] | undefined): string | undefined {
  if (typeof apiKeyHeader === 'string' && apiKeyHeader.length > 0) return apiKeyHeader;
  const match = /^Bearer\s+(.+)$/i.exec(authorization ?? '');
  return match?.[1]?.trim();
}

/** Requires the API key on every path but the public ones; compares digests in constant time. */
export function requireApiKey(apiKey: string, publicPaths: readonly string[]): RequestHandler {
  const expected = digest(apiKey);
  const isPublic = (path: string) => publicPaths.some((p) => path === p || path.startsWith(`${p}/`));
  return (req, _res, next) => {
    if (isPublic(req.path)) return next();
    const key = presentedKey(req.headers.authorization, req.headers['x-api-key']);
    if (key === undefined || !timingSafeEqual(digest(key), expected)) throw new AppError('UNAUTHORIZED');
    next();
  };
}
