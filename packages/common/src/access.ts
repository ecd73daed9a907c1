import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { createFileExclusively } from './atomic-file.js';
import type { Logger } from './logger.js';

/** How a service is reached and guarded, settled once at startup. */
export interface Access {
  host: string;
  apiKey: string | undefined;
  /** True when a non-loopback HOST runs without a key because ALLOW_OPEN_LAN says so; /health reports it. */
  openLan: boolean;
}

export interface AccessSettings {
  host: string | undefined;
  apiKey: string | undefined;
  /** The generated key's file, used only when a key is needed and none is set. */
  apiKeyFile: string;
  allowOpenLan: boolean;
  logger: Logger;
}

const LOOPBACK_NAMES = new Set(['localhost', '::1', '[::1]']);

/** True for an address only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  if (LOOPBACK_NAMES.has(host.toLowerCase())) return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  return bare === '::1' || bare.toLowerCase() === '::ffff:127.0.0.1';
}

/** Reads the key kept in the data folder, or writes a new one there (0600, folder 0700); never logs the key. */
async function keptApiKey(file: string, logger: Logger): Promise<string> {
  const kept = await readFile(file, 'utf8').then(
    (text) => text.trim(),
    (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      throw new Error(`cannot read the API key file ${file}: ${err.code ?? err.message}`);
    },
  );
  if (kept !== undefined) {
    if (kept.length < 32 || /\s/.test(kept)) throw new Error(`the API key file ${file} does not hold a key of 32 or more characters`);
    logger.info({ file }, `API key read from ${file}; send it as "Authorization: Bearer <key>"`);
    return kept;
  }
  const key = randomBytes(32).toString('base64url');
  // Created whole or not at all (linked from a synced temp file): of two services starting together on one folder only
  // one writes, and the other reads all of what it wrote, never an empty or half-written key.
  const written = await createFileExclusively(file, `${key}\n`).catch((err: NodeJS.ErrnoException) => {
    throw new Error(`cannot save the generated API key to ${file}: ${err.code ?? err.message}`);
  });
  if (!written) return keptApiKey(file, logger);
  logger.warn(
    { file },
    `API_KEY is not set and HOST is not loopback: generated an API key and saved it to ${file}. ` +
      `Read it with: cat ${file} (in Docker: docker compose exec <service> cat ${file}); ` +
      'send it as "Authorization: Bearer <key>" or type it into the dashboard',
  );
  return key;
}

/**
 * Without API_KEY a service binds loopback only. On another address it needs a key: the kept or a new generated one,
 * unless ALLOW_OPEN_LAN opts out explicitly.
 */
export async function resolveAccess(settings: AccessSettings): Promise<Access> {
  const { apiKey, logger } = settings;
  const host = settings.host ?? (apiKey ? '0.0.0.0' : '127.0.0.1');
  if (apiKey || isLoopbackHost(host)) {
    if (!apiKey) logger.info(`API_KEY is not set: listening on ${host} only (set API_KEY, or HOST=0.0.0.0 to get a generated key)`);
    return { host, apiKey, openLan: false };
  }
  if (settings.allowOpenLan) {
    logger.warn(`ALLOW_OPEN_LAN is set: listening on ${host} with NO API key; anyone who can reach this port controls it`);
    return { host, apiKey: undefined, openLan: true };
  }
  return { host, apiKey: await keptApiKey(settings.apiKeyFile, logger), openLan: false };
}

/** The access variables of a parsed service config (see HttpAccessShape). */
export interface AccessConfig {
  HOST?: string | undefined;
  API_KEY?: string | undefined;
  API_KEY_FILE?: string | undefined;
  ALLOW_OPEN_LAN?: boolean;
}

/**
 * The config with HOST and API_KEY settled by resolveAccess; ALLOW_OPEN_LAN stays true only where it took effect (a
 * non-loopback HOST without a key), which is what /health reports.
 */
export async function withResolvedAccess<C extends AccessConfig>(config: C, defaultKeyFile: string, logger: Logger): Promise<C & { HOST: string }> {
  const access = await resolveAccess({
    host: config.HOST,
    apiKey: config.API_KEY,
    apiKeyFile: config.API_KEY_FILE ?? defaultKeyFile,
    allowOpenLan: config.ALLOW_OPEN_LAN ?? false,
    logger,
  });
  return { ...config, HOST: access.host, API_KEY: access.apiKey, ALLOW_OPEN_LAN: access.openLan };
}
