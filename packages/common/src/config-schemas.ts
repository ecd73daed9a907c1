import { trustedProxyProblem } from './client-address.js';
import { z } from './zod.js';

/** LOG_LEVEL, shared by both services. */
export const LogLevelSchema = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info');

/** API_KEY: when set, callers must present it. Long enough that guessing it over HTTP is hopeless. */
export const ApiKeySchema = z
  .string()
  .min(32, 'must be at least 32 characters (e.g. `openssl rand -base64 32`)')
  .regex(/^\S+$/, 'must not contain spaces or other whitespace')
  .optional();

const flag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes')
  .default(false);

/**
 * The variables of the HTTP baseline every service shares: where it listens and who may talk to it. HOST has no
 * default here: without a key the service binds loopback only (see resolveAccess).
 */
export const HttpAccessShape = {
  HOST: z.string().min(1).optional(),
  LOG_LEVEL: LogLevelSchema,
  API_KEY: ApiKeySchema,
  /** Where a generated key is kept when HOST is not loopback and API_KEY is unset; default `api-key` in the data folder. */
  API_KEY_FILE: z.string().min(1).optional(),
  /** Where the scoped tokens are kept (hashes only, 0600); default `<service>-tokens.json` in the data folder. */
  TOKENS_FILE: z.string().min(1).optional(),
  /** An explicit opt-out for a trusted LAN: listen on HOST without any key (/health says degraded). */
  ALLOW_OPEN_LAN: flag,
  /** Wrong API keys one client address may send per minute before it gets 429 for the rest of the minute. */
  AUTH_MAX_FAILURES_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(10),
  /** Event streams open at once: in all, and from one client address (429 past either). */
  SSE_MAX_STREAMS: z.coerce.number().int().min(1).max(100_000).default(200),
  SSE_MAX_STREAMS_PER_ADDRESS: z.coerce.number().int().min(1).max(100_000).default(20),
  /** Streams one token may hold at once, so a limited token cannot take the slots everyone shares. */
  SSE_MAX_STREAMS_PER_TOKEN: z.coerce.number().int().min(1).max(100_000).default(10),
  /**
   * Reverse proxies whose X-Forwarded-For is believed (addresses, CIDR ranges, `loopback`…, comma-separated): only
   * then the wrong-key throttle and the stream limits count the client behind the proxy. Default none.
   */
  TRUSTED_PROXIES: z
    .string()
    .optional()
    .transform((value, ctx) => {
      const entries = (value ?? '')
        .split(',')
        .map((entry) => entry.trim())
        .filter((entry) => entry.length > 0);
      for (const entry of entries) {
        const problem = trustedProxyProblem(entry);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      }
      return entries;
    }),
  /** `off`: no request counting and no `GET /metrics` (docs/metrics.md). */
  METRICS: z.enum(['on', 'off']).default('on'),
  /** Host names accepted besides IP literals, localhost, dotless names and .local/.lan/.home.arpa/.internal ones. */
  ALLOWED_HOSTS: z
    .string()
    .optional()
    .transform((value) =>
      (value ?? '')
        .split(',')
        .map((name) => name.trim().toLowerCase())
        .filter((name) => name.length > 0),
    ),
};
