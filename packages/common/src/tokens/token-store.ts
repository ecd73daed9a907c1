import { readFile, stat } from 'node:fs/promises';
import { writeFileAtomically } from '../atomic-file.js';
import { systemClock, type Clock } from '../clock.js';
import { z } from '../zod.js';
import { withFileLock } from './file-lock.js';
import { GrantSchema } from './scopes.js';
import { mergeTokens } from './token-merge.js';

/** A token as it is kept: the sha-256 of its secret, never the secret. */
export const StoredTokenSchema = z.object({
  id: z.string().regex(/^[0-9a-f]{12}$/),
  label: z.string(),
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  scopes: z.array(GrantSchema),
  createdAt: z.string(),
  expiresAt: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
});
export type StoredToken = z.infer<typeof StoredTokenSchema>;

const TokenFileSchema = z.object({ version: z.literal(1), tokens: z.array(StoredTokenSchema) });

/** Where the tokens are kept between runs. */
export interface TokenStore {
  load(): Promise<StoredToken[]>;
  /** Keeps `tokens`; a store other processes write too merges them with theirs and returns what it now keeps. */
  save(tokens: readonly StoredToken[]): Promise<StoredToken[] | void>;
  /** What is kept now if another process changed it since this one last loaded or saved; undefined if unchanged. */
  reload?(): Promise<StoredToken[] | undefined>;
}

/** Tokens kept in memory only (tests, and a library user who manages its own). */
export class InMemoryTokenStore implements TokenStore {
  private tokens: StoredToken[] = [];

  load(): Promise<StoredToken[]> {
    return Promise.resolve(structuredClone(this.tokens));
  }

  save(tokens: readonly StoredToken[]): Promise<void> {
    this.tokens = structuredClone([...tokens]);
    return Promise.resolve();
  }
}

/**
 * Tokens in a JSON file beside the service's data, 0600 in a 0700 folder, replaced atomically (written to a temp file,
 * synced, renamed). A file that is not a token file stops the start and is never overwritten. Processes that share the
 * file (instances of one service on one folder) each write under a lock, merging with what the file holds then
 * (`mergeTokens`: nothing another wrote is lost, nothing revoked comes back), and see each other's changes by `reload`.
 */
export class FileTokenStore implements TokenStore {
  /** The tokens as this process last read or wrote them: the base of the next merge. */
  private base: StoredToken[] = [];
  /** The file's identity when this process last read or wrote it: a rename by another changes it. */
  private seen: string | undefined;

  constructor(
    private readonly file: string,
    private readonly clock: Clock = systemClock,
  ) {}

  async load(): Promise<StoredToken[]> {
    const tokens = await this.read();
    this.base = tokens;
    return structuredClone(tokens);
  }

  async save(tokens: readonly StoredToken[]): Promise<StoredToken[]> {
    return withFileLock(`${this.file}.lock`, this.clock, async () => {
      const kept = mergeTokens(this.base, tokens, await this.read());
      await writeFileAtomically(this.file, `${JSON.stringify({ version: 1, tokens: kept }, null, 2)}\n`);
      this.seen = await this.identity();
      this.base = kept;
      return structuredClone(kept);
    });
  }

  async reload(): Promise<StoredToken[] | undefined> {
    if ((await this.identity()) === this.seen) return undefined;
    return this.load();
  }

  private async identity(): Promise<string | undefined> {
    const info = await stat(this.file).catch(() => undefined);
    return info && `${info.ino}:${info.size}:${info.mtimeMs}`;
  }

  private async read(): Promise<StoredToken[]> {
    this.seen = await this.identity();
    const text = await readFile(this.file, 'utf8').catch((err: NodeJS.ErrnoException) => {
      // No file, or no data folder yet (or a file in its place, which the first save reports): no tokens.
      if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return undefined;
      throw new Error(`cannot read the token file ${this.file}: ${err.code ?? err.message}`);
    });
    if (text === undefined) return [];
    return parseTokenFile(text, this.file);
  }
}

/** The tokens of a token file's text; throws (naming `file`) on anything else. */
export function parseTokenFile(text: string, file: string): StoredToken[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`the token file ${file} is not JSON; fix or move it (it is never overwritten)`);
  }
  const content = TokenFileSchema.safeParse(parsed);
  if (!content.success) throw new Error(`the token file ${file} is not a token file (${content.error.issues[0]?.message}); fix or move it`);
  return content.data.tokens;
}
