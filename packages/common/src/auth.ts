import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import { AuthThrottle } from './auth-throttle.js';
import { clientAddressOf } from './client-address.js';
import { AppError } from './errors.js';
import { Principal, principalOf, setPrincipal } from './tokens/principal.js';
import type { TokenRegistry } from './tokens/token-registry.js';

const digest = (value: string) => createHash('sha256').update(value).digest();

function presentedKey(authorization: string | undefined, apiKeyHeader: string | string[] | undefined): string | undefined {
  if (typeof apiKeyHeader === 'string' && apiKeyHeader.length > 0) return apiKeyHeader;
  const match = /^Bearer\s+(.+)$/i.exec(authorization ?? '');
  return match?.[1]?.trim();
}

/**
 * Whether this request may see everything (/health's details: paths, recipients, problems): the key or an admin token;
 * undefined when the service has no key (everything is visible). A limited token sees what a caller without one sees.
 */
export function keyAccepted(res: Response): boolean | undefined {
  const principal = principalOf(res);
  return principal.kind === 'open' ? undefined : principal.isAdmin;
}

export interface AuthenticateOptions {
  apiKey: string;
  /** Scoped tokens accepted besides the key. */
  tokens?: TokenRegistry | undefined;
  publicPaths: readonly string[];
  throttle?: AuthThrottle;
}

/**
 * Finds who calls: the API key (an admin) or a scoped token, compared in constant time; any other path than the public
 * ones needs one of them (each route then checks its scope). An address that sent too many wrong keys gets 429 for
 * every wrong or missing key until its window ends; a valid key or token still passes, so guessers sharing an address
 * (a household behind one NAT, everyone behind a reverse proxy) cannot lock its owner out. The secrets themselves
 * (32+ character keys, 256-bit token secrets) are what make guessing hopeless; the throttle bounds its noise.
 */
export function authenticate(options: AuthenticateOptions): RequestHandler {
  const expected = digest(options.apiKey);
  const throttle = options.throttle ?? new AuthThrottle();
  const { publicPaths, tokens } = options;
  // Exact paths and their subpaths; '/' only as itself (or '//x' would pass as public).
  const isPublic = (path: string) => publicPaths.some((p) => path === p || (p !== '/' && path.startsWith(`${p}/`)));
  const principalFor = (key: string): Principal | undefined => (timingSafeEqual(digest(key), expected) ? Principal.key : tokens?.authenticate(key));
  return (req, res, next) => {
    const key = presentedKey(req.headers.authorization, req.headers['x-api-key']);
    const principal = key === undefined ? undefined : principalFor(key);
    setPrincipal(res, principal ?? Principal.anonymous);
    if (principal) return next();
    const address = clientAddressOf(req);
    const wait = throttle.blockedFor(address);
    if (wait === 0 && key !== undefined) throttle.recordFailure(address);
    if (isPublic(req.path)) return next();
    if (wait > 0) throw new AppError('TOO_MANY_AUTH_FAILURES', undefined, { retryAfterSeconds: wait });
    throw new AppError('UNAUTHORIZED');
  };
}
