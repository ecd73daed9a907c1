import { AppError } from '@homeops/common';
import type { SecretRedactor } from './meross-secrets.js';

/** What went wrong on a call to the Meross HTTP API. */
export type CloudFailureKind = 'api' | 'http' | 'network' | 'timeout' | 'malformed' | 'library';

/** A failed Meross API call; its message names the path and the code, never a parameter or a header. */
export class CloudCallError extends Error {
  constructor(
    readonly kind: CloudFailureKind,
    readonly apiStatus: number | null,
    message: string,
  ) {
    super(message);
    this.name = 'CloudCallError';
  }
}

const API_TEXT: Record<number, string> = {
  1001: 'wrong or missing password',
  1002: 'account does not exist',
  1003: 'account disabled or deleted',
  1004: 'wrong email or password',
  1005: 'invalid email address',
  1006: 'bad password format',
  1008: 'email not registered',
  1019: 'token expired',
  1022: 'token error',
  1030: 'region redirect',
  1032: 'invalid MFA code',
  1033: 'MFA code required',
  1200: 'token has expired',
  1255: 'too many remote control boards',
  1301: 'too many tokens issued; the account is temporarily locked',
  5000: 'unknown or generic error',
};

/** The vendor's meaning of an apiStatus, for messages. */
export function describeApiStatus(code: number): string {
  return API_TEXT[code] ?? 'unknown error';
}

/** The cloud refused the session token: the only reason to log in again. */
export const TOKEN_REJECTED = new Set([1019, 1022, 1200]);
/** Retrying these cannot succeed without a change of configuration (credentials, MFA code). */
export const CREDENTIALS_REJECTED = new Set([1001, 1002, 1003, 1004, 1005, 1006, 1008, 1032, 1033]);
/** "Too many tokens": the account is locked for hours; any login now prolongs it. */
export const TOO_MANY_TOKENS = 1301;

/** True for 1019/1022/1200. */
export function isTokenRejected(err: unknown): boolean {
  return err instanceof CloudCallError && err.apiStatus !== null && TOKEN_REJECTED.has(err.apiStatus);
}

/** The AppError a failed API call becomes: timeout 504, unreachable 503 (with Retry-After), anything else 502. */
export function toAppError(err: unknown, redactor: SecretRedactor, retryAfterSeconds: number): AppError {
  if (!(err instanceof CloudCallError)) return new AppError('CLOUD_ERROR', redactor.describe(err));
  const message = redactor.redact(err.message);
  switch (err.kind) {
    case 'timeout':
      return new AppError('CLOUD_TIMEOUT', message);
    case 'network':
    case 'http':
      return new AppError('CLOUD_UNAVAILABLE', `The Meross API is not reachable (${message})`, { retryAfterSeconds });
    default:
      return new AppError(
        'CLOUD_ERROR',
        err.apiStatus === null ? message : `Meross cloud error ${err.apiStatus}: ${describeApiStatus(err.apiStatus)}`,
      );
  }
}
