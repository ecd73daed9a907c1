import { createHash } from 'node:crypto';
import { chmod, mkdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { isoNow, z, type Clock } from '@homeops/common';
import type { TokenStoreStatus } from '../../domain/device-cloud.js';
import { tempPathOf, writeSecretFile } from './meross-secret-file.js';

const StoredTokenSchema = z.object({
  version: z.literal(1),
  account: z.string(),
  token: z.string().min(1),
  key: z.string().min(1),
  userId: z.string().min(1),
  userEmail: z.string().nullable(),
  /** host[:port] of the API after any region redirect. */
  domain: z.string().min(1),
  mqttDomain: z.string().nullable(),
  /** The account asks for an MFA code at login: an expired token then waits for POST /cloud/login. */
  mfa: z.boolean().optional(),
  savedAt: z.string(),
});

/** A session token as persisted between restarts (the file is a secret: mode 0600). */
export type StoredToken = z.infer<typeof StoredTokenSchema>;

/**
 * Keeps the token of one account across restarts. The account fingerprint takes in the e-mail and the configured
 * API URL only, not the domain in use: unlike meross-cloud's own hash, it still matches after a region redirect.
 */
export class TokenStore {
  readonly account: string;
  private state: TokenStoreStatus;

  constructor(
    private readonly file: string | undefined,
    email: string,
    apiUrl: string,
    private readonly clock: Clock,
  ) {
    this.account = createHash('sha256').update(`${email.trim().toLowerCase()}\n${apiUrl}`).digest('hex');
    this.state = { file: file ?? null, writable: null, error: null, savedAt: null };
  }

  status(): TokenStoreStatus {
    return { ...this.state };
  }

  /**
   * Proves the token can be saved before any login needs it: creates the folder (0700) and writes and removes a
   * probe file. A real write, since permission bits say nothing when the service runs as root. Never throws.
   */
  async check(): Promise<TokenStoreStatus> {
    if (!this.file) return this.status();
    await this.recorded(async () => {
      const probe = tempPathOf(this.file!);
      await writeFile(probe, '', { mode: 0o600 });
      await unlink(probe);
    }).catch(() => undefined);
    return this.status();
  }

  /** The saved token of this account, or null (no file, another account, unreadable). */
  async load(): Promise<StoredToken | null> {
    if (!this.file) return null;
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch {
      return null;
    }
    await chmod(this.file, 0o600).catch(() => undefined);
    try {
      const parsed = StoredTokenSchema.safeParse(JSON.parse(text));
      return parsed.success && parsed.data.account === this.account ? parsed.data : null;
    } catch {
      return null;
    }
  }

  async save(token: Omit<StoredToken, 'version' | 'account' | 'savedAt'>): Promise<void> {
    if (!this.file) return;
    const file = this.file;
    const record: StoredToken = { version: 1, account: this.account, ...token, savedAt: isoNow(this.clock) };
    await this.recorded(() => writeSecretFile(file, `${JSON.stringify(record, null, 2)}\n`));
    this.state.savedAt = record.savedAt;
  }

  async clear(): Promise<void> {
    if (this.file) await rm(this.file, { force: true });
  }

  /** Runs a write in the token's folder and records whether it worked; rethrows the failure. */
  private async recorded(write: () => Promise<void>): Promise<void> {
    try {
      await mkdir(dirname(this.file!), { recursive: true, mode: 0o700 });
      await write();
      Object.assign(this.state, { writable: true, error: null });
    } catch (err) {
      const { code, message } = err as NodeJS.ErrnoException;
      Object.assign(this.state, { writable: false, error: code && !message.startsWith(code) ? `${code}: ${message}` : message });
      throw err;
    }
  }
}
