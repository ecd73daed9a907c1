import { isIP } from 'node:net';
import type { Request } from 'express';

/** The names proxy-addr (Express's `trust proxy`) knows for whole ranges. */
const RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** Why one TRUSTED_PROXIES entry is not an address, a CIDR range or a range name; undefined when it is one. */
export function trustedProxyProblem(entry: string): string | undefined {
  if (RANGE_NAMES.has(entry)) return undefined;
  const [address = '', prefix, extra] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return `"${entry}" is not an IP address, a CIDR range (10.0.0.0/8) or loopback/linklocal/uniquelocal`;
  if (prefix === undefined) return undefined;
  const bits = /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN;
  return bits >= 0 && bits <= (family === 4 ? 32 : 128) ? undefined : `"${entry}" has no valid prefix length`;
}

/**
 * The address a request comes from: the connecting peer, or, when that peer is a trusted proxy (TRUSTED_PROXIES, set
 * as Express's `trust proxy`), the right-most X-Forwarded-For address that is not itself trusted. Without trusted
 * proxies X-Forwarded-For is never read, so a client cannot pick the address it is counted under.
 */
export function clientAddressOf(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}
