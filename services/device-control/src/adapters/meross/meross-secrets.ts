import { createHash } from 'node:crypto';

const md5 = (text: string) => createHash('md5').update(text).digest('hex');

/** Masks every secret of the session in text that came from the library or the network. */
export class SecretRedactor {
  constructor(
    private readonly password: string,
    private readonly session: () => { token: string | null; key: string | null; userId: string | null },
  ) {}

  redact(text: string): string {
    const { token, key, userId } = this.session();
    const secrets = [this.password, md5(this.password), token, key, key && userId ? md5(`${userId}${key}`) : null];
    let clean = text;
    for (const secret of secrets) {
      if (secret && secret.length >= 4) clean = clean.split(secret).join('[redacted]');
    }
    return clean;
  }

  /** A library error (Error, string or anything) as safe text. */
  describe(error: unknown): string {
    const text = error instanceof Error ? error.message : typeof error === 'string' ? error : 'unknown error';
    return this.redact(text).slice(0, 300);
  }
}
