import { hostname } from 'node:os';
import { isIP } from 'node:net';
import type { Request, RequestHandler } from 'express';
import { AppError } from './errors.js';

/** Suffixes that public DNS never answers, so a rebinding attacker cannot own a name under them. */
const PRIVATE_SUFFIXES = ['.local', '.lan', '.home.arpa', '.internal', '.localhost'];

/** The name of a Host header without port, brackets or trailing dot, lower-cased; undefined when malformed. */
function hostName(header: string): string | undefined {
  const ipv6 = /^\[([0-9a-fA-F:.]+)\](?::\d{1,5})?$/.exec(header);
  if (ipv6) return isIP(ipv6[1]!) === 6 ? ipv6[1]!.toLowerCase() : undefined;
  const match = /^([A-Za-z0-9._-]+)(?::\d{1,5})?$/.exec(header);
  return match?.[1]?.toLowerCase().replace(/\.$/, '');
}

/**
 * The host names a page may use to reach this service. DNS rebinding needs a name whose DNS the attacker controls,
 * and that is always a dotted public name: IP literals, dotless names (Docker service names, NetBIOS), private
 * suffixes and this machine's own name are safe; anything else must be listed in ALLOWED_HOSTS (`.example.com`
 * admits every name under it).
 */
export function isAllowedHost(name: string, allowed: readonly string[], machine = hostname().toLowerCase()): boolean {
  if (isIP(name) !== 0 || !name.includes('.') || name === 'localhost') return true;
  if (PRIVATE_SUFFIXES.some((suffix) => name.endsWith(suffix))) return true;
  if (name === machine || name === machine.split('.')[0]) return true;
  return allowed.some((entry) => (entry.startsWith('.') ? name.endsWith(entry) || name === entry.slice(1) : name === entry));
}

/** Refuses requests whose Host header names a host this service does not answer to (DNS rebinding). */
export function requireAllowedHost(allowed: readonly string[]): RequestHandler {
  const machine = hostname().toLowerCase();
  return (req, _res, next) => {
    const header = req.headers.host;
    // HTTP/1.0 tools may omit Host; a browser never does.
    if (header !== undefined) {
      const name = hostName(header);
      if (name === undefined || !isAllowedHost(name, allowed, machine)) {
        throw new AppError('HOST_NOT_ALLOWED', `Host ${JSON.stringify(header.slice(0, 100))} is not one this service answers to`);
      }
    }
    next();
  };
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The host:port of an Origin header value, or undefined for `null` and anything that is not an http(s) origin. */
function originHost(origin: string): string | undefined {
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.host : undefined;
  } catch {
    return undefined;
  }
}

/** The host:port of a Referer header value (a page's address), or undefined when it is not an http(s) URL. */
function refererHost(referer: string): string | undefined {
  try {
    const url = new URL(referer);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.host : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether a browser sent this request from another site's page. Chromium sends Fetch Metadata (Sec-Fetch-Site) only
 * to trustworthy origins (https, loopback): to a LAN name over plain HTTP a POST still carries its Origin, but an
 * `<img>` GET carries neither, only the page's Referer. Scripts (curl, cron, Node-RED) send none of the three and pass.
 */
export function isCrossSiteRequest(req: Request): boolean {
  const host = (req.headers.host ?? '').toLowerCase();
  const { origin, referer } = req.headers;
  if (req.headers['sec-fetch-site'] === 'cross-site') return true;
  if (origin !== undefined && originHost(origin) !== host) return true;
  return referer !== undefined && refererHost(referer) !== host;
}

/** Throws CROSS_ORIGIN_REFUSED for a request a page on another site sent (see isCrossSiteRequest). */
export function assertNotCrossSite(req: Request): void {
  if (!isCrossSiteRequest(req)) return;
  const origin = req.headers.origin ?? req.headers.referer;
  throw new AppError('CROSS_ORIGIN_REFUSED', `${req.method} from ${origin === undefined ? 'another site' : JSON.stringify(origin.slice(0, 100))} refused`);
}

/**
 * A page on another site can send forms and no-cors fetches to a LAN address without the user noticing: a change
 * from a browser is accepted only from this service's own origin. A GET that changes something (a heartbeat ping)
 * is refused by its route the same way (RouteSpec.changesState).
 */
export const refuseCrossOriginWrites: RequestHandler = (req, _res, next) => {
  if (!SAFE_METHODS.has(req.method)) assertNotCrossSite(req);
  next();
};
