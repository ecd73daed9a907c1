import { AppError } from '@homeops/common';

const UNIQUE_VIOLATION = '23505';

/** True for PostgreSQL's duplicate key error. */
export function isDuplicateKey(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === UNIQUE_VIOLATION;
}

/**
 * Any failure of a query (down, restarting, pool exhausted, timed out) as the 503 the client sees: the change was not
 * made, retry later. The driver's messages carry no password; the URL is never part of them.
 */
export function storageUnavailable(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new AppError('STORAGE_UNAVAILABLE', `The notification database did not answer: ${message}`, {
    cause: err,
    solution: 'Retry in a few seconds; if it persists, check that PostgreSQL is up and see /health',
    retryAfterSeconds: 5,
  });
}

/** postgres://user:secret@host:5432/db?… → host:5432/db, for /health and logs. */
export function describeDatabase(url: string): string {
  try {
    const parsed = new URL(url);
    return `postgres://${parsed.hostname}${parsed.port ? `:${parsed.port}` : ''}${parsed.pathname}`;
  } catch {
    return 'postgres://(unparsable url)';
  }
}
