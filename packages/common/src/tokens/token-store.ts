import { readFile } from 'node:fs/promises';
import { writeFileAtomically } from '../atomic-file.js';
import { z } from '../zod.js';
import { GrantSchema } from './scopes.js';

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
  save(tokens: readonly StoredToken[]): Promise<void>;
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
 * synced, renamed). A file that is not a token file stops the start and is never overwritten.
 */
export class FileTokenStore implements TokenStore {
  constructor(private readonly file: string) {}

  async load(): Promise<StoredToken[]> {
    const text = await readFile(this.file, 'utf8').catch((err: NodeJS.ErrnoException) => {
      // No file, or no data folder yet (or a file in its place, which the first save reports): no tokens.
      if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return undefined;
      throw new Error(`cannot read the token file ${this.file}: ${err.code ?? err.message}`);
    });
    if (text === undefined) return [];
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error(`the token file ${this.file} is not JSON; fix or move it (it is never overwritten)`);
    }
    const file = TokenFileSchema.safeParse(parsed);
    if (!file.success) throw new Error(`the token file ${this.file} is not a token file (${file.error.issues[0]?.message}); fix or move it`);
    return file.data.tokens;
  }

  async save(tokens: readonly StoredToken[]): Promise<void> {
    await writeFileAtomically(this.file, `${JSON.stringify({ version: 1, tokens }, null, 2)}\n`);
  }
}
