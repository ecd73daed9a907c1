import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createFileExclusively } from '../atomic-file.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { Scope } from './scopes.js';
import { openTokens, type TokenRegistry } from './token-registry.js';
import { parseTokenFile, type StoredToken } from './token-store.js';

/** The file both services shared before each kept its own: split once, never written again. */
export const SHARED_TOKENS_FILE = 'tokens.json';
// Scopes every service knows: a token holding only these could have been made at either, so each keeps a copy.
const SCOPES_OF_EVERY_SERVICE: readonly Scope[] = ['admin', 'metrics'];

/** Where and how a service keeps its tokens. */
export interface ServiceTokenSettings {
  /** TOKENS_FILE when set: used as it is, never split. */
  file: string | undefined;
  /** The service's data folder: its own `<service>-tokens.json` is kept there. */
  dataDir: string;
  service: string;
  scopes: readonly Scope[];
  clock: Clock;
  families?: readonly string[];
  logger: Logger;
}

/**
 * The tokens a service may keep of the shared file: those holding a scope only it knows, each with just its scopes
 * (one holding both services' scopes goes to each with its own), and those holding only scopes every service knows
 * (admin, metrics: either could have made them, so both keep them). Last-use times and expiries come along; a token
 * not in the file (revoked) is not made up.
 */
export function tokensOfService(shared: readonly StoredToken[], scopes: readonly Scope[]): StoredToken[] {
  return shared.flatMap((token) => {
    const own = token.scopes.filter((grant) => scopes.includes(grant.scope));
    const specific = own.some((grant) => !SCOPES_OF_EVERY_SERVICE.includes(grant.scope));
    const common = token.scopes.every((grant) => SCOPES_OF_EVERY_SERVICE.includes(grant.scope));
    return own.length > 0 && (specific || common) ? [{ ...token, scopes: own }] : [];
  });
}

/**
 * Opens a service's tokens: TOKENS_FILE, else `<service>-tokens.json` in its data folder. Two services on one folder
 * (`pnpm start`) used to share `tokens.json` and overwrite each other's tokens; when the service's own file does not
 * exist yet and that file does, the service's part of it is copied into its own file once (created whole, never
 * over a file another instance made first). The shared file is left as it was, for the other service to take its part.
 */
export async function openServiceTokens(settings: ServiceTokenSettings): Promise<TokenRegistry> {
  const { dataDir, service, scopes, clock, families, logger } = settings;
  const file = settings.file ?? join(dataDir, `${service}-tokens.json`);
  if (settings.file === undefined) await splitSharedTokens(join(dataDir, SHARED_TOKENS_FILE), file, scopes, logger);
  const tokens = await openTokens(file, scopes, clock, families);
  if (tokens.foreignCount > 0) {
    logger.warn(
      { file, tokens: tokens.foreignCount },
      `${file} holds ${tokens.foreignCount} tokens of another service: they are refused here and left in the file. ` +
        'Give each service its own TOKENS_FILE (or none: each then keeps <service>-tokens.json in its data folder)',
    );
  }
  return tokens;
}

async function splitSharedTokens(shared: string, own: string, scopes: readonly Scope[], logger: Logger): Promise<void> {
  const exists = await stat(own).then(
    () => true,
    (err: NodeJS.ErrnoException) => err.code !== 'ENOENT',
  );
  if (exists) return;
  const text = await readFile(shared, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return undefined;
    throw new Error(`cannot read the shared token file ${shared}: ${err.code ?? err.message}`);
  });
  if (text === undefined) return;
  const all = parseTokenFile(text, shared);
  const mine = tokensOfService(all, scopes);
  const created = await createFileExclusively(own, `${JSON.stringify({ version: 1, tokens: mine }, null, 2)}\n`);
  if (!created) return;
  logger.warn(
    { from: shared, to: own, tokens: mine.length, of: all.length },
    `tokens are now kept in ${own}: took ${mine.length} of the ${all.length} tokens of ${shared}, the file both services ` +
      `shared (it is left as it was; remove it once both services have started)`,
  );
}
