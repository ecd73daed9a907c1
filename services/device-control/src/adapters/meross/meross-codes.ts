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

/**
 * What the session does about an apiStatus:
 * - relogin: the token is refused; drop it and log in again (backed off);
 * - credentials: no retry can succeed until the configuration changes;
 * - mfa: a login needs the current code of the authenticator app (POST /cloud/login);
 * - lockout: the cloud throttles or locks the account; send nothing at all for `waitMs`;
 * - retry: a failure of the cloud's own; retry with the growing backoff.
 */
export type CodeReaction = { kind: 'relogin' } | { kind: 'credentials' } | { kind: 'mfa' } | { kind: 'lockout'; waitMs: number } | { kind: 'retry' };

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * Every apiStatus in the public code tables of MerossIot (meross_iot/model/http/error_codes.py) and meross_lan
 * (merossclient/cloudapi.py), with the vendor's text and our reaction. Waits of a lock-out are our choice where the
 * vendor says nothing; 1301 follows Meross support's "about 5 hours".
 */
const CODES: Record<number, [text: string, reaction: CodeReaction]> = {
  500: ['the selected timezone is not supported', { kind: 'retry' }],
  1000: ['wrong or missing user', { kind: 'credentials' }],
  1001: ['wrong or missing password', { kind: 'credentials' }],
  1002: ['account does not exist', { kind: 'credentials' }],
  1003: ['account disabled or deleted', { kind: 'credentials' }],
  1004: ['wrong email or password', { kind: 'credentials' }],
  1005: ['invalid email address', { kind: 'credentials' }],
  1006: ['bad password format', { kind: 'credentials' }],
  1007: ['user already exists', { kind: 'retry' }],
  1008: ['email not registered', { kind: 'credentials' }],
  1009: ['email send failed', { kind: 'retry' }],
  1011: ['wrong ticket', { kind: 'retry' }],
  1012: ['code overdue', { kind: 'retry' }],
  1013: ['wrong code', { kind: 'retry' }],
  1014: ['duplicate password', { kind: 'retry' }],
  1015: ['same email when changing account email', { kind: 'retry' }],
  1019: ['token invalid or expired', { kind: 'relogin' }],
  1022: ['token error', { kind: 'relogin' }],
  1028: ['requested too frequently', { kind: 'lockout', waitMs: 15 * MINUTE }],
  1030: ['region redirect', { kind: 'retry' }],
  1031: ['user name does not match', { kind: 'credentials' }],
  1032: ['wrong MFA code', { kind: 'mfa' }],
  1033: ['MFA code required', { kind: 'mfa' }],
  1035: ['operation is locked', { kind: 'lockout', waitMs: HOUR }],
  1041: ['repeat check-in', { kind: 'retry' }],
  1042: ['API top limit reached', { kind: 'lockout', waitMs: HOUR }],
  1043: ['resource access denied', { kind: 'lockout', waitMs: HOUR }],
  1200: ['token has expired', { kind: 'relogin' }],
  1201: ['server was unable to generate a token', { kind: 'retry' }],
  1255: ['too many remote control boards', { kind: 'retry' }],
  1256: ['compatible mode having', { kind: 'retry' }],
  1257: ['compatible mode not having', { kind: 'retry' }],
  1301: ['too many tokens issued; the account is temporarily locked', { kind: 'lockout', waitMs: 5 * HOUR }],
  5000: ['unknown or generic error', { kind: 'retry' }],
  5020: ['infrared remote device is busy', { kind: 'retry' }],
  5021: ['infrared record timeout', { kind: 'retry' }],
  5022: ['infrared record invalid', { kind: 'retry' }],
  10001: ['system error', { kind: 'retry' }],
  10002: ['unknown error', { kind: 'retry' }],
  10003: ['serialize error', { kind: 'retry' }],
  10006: ['HTTP common error', { kind: 'retry' }],
  20101: ['invalid parameter', { kind: 'retry' }],
  20106: ['resource does not exist', { kind: 'retry' }],
  20112: ['unsupported', { kind: 'retry' }],
  20115: ['send email limit', { kind: 'retry' }],
};
// Listed by MerossIot as "unknown error" without a meaning: a failure of the cloud's own.
for (const code of [
  1021, 1023, 1024, 1025, 1026, 1027, 1202, 1203, 1204, 1210, 1211, 1212, 1213, 1214, 1215, 1226, 1227, 1228, 1229, 1230, 1231, 1232, 1233, 1400, 1401, 1402,
  1403, 1500, 1501, 1502, 1503, 1504, 1601, 1602, 1603, 1604, 1605, 1700, 5001, 5002, 5003, 5004,
]) {
  CODES[code] = ['unknown error', { kind: 'retry' }];
}

/** The vendor's meaning of an apiStatus, for messages. */
export function describeApiStatus(code: number): string {
  return CODES[code]?.[0] ?? 'unknown error';
}

/** True when the code is in the public tables; an unknown one is logged once with its number. */
export function isKnownApiStatus(code: number): boolean {
  return CODES[code] !== undefined;
}

/** What to do about a code; an unknown code is retried with the growing backoff, never in a tight loop. */
export function reactionTo(code: number): CodeReaction {
  return CODES[code]?.[1] ?? { kind: 'retry' };
}

/** "Too many tokens": the account is locked for hours; any login now prolongs it. */
export const TOO_MANY_TOKENS = 1301;

/** True for 1019/1022/1200: the only reason to log in again. */
export function isTokenRejected(err: unknown): boolean {
  return err instanceof CloudCallError && err.apiStatus !== null && reactionTo(err.apiStatus).kind === 'relogin';
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
    case 'api':
    case 'malformed':
    case 'library':
      return new AppError('CLOUD_ERROR', err.apiStatus === null ? message : `Meross cloud error ${err.apiStatus}: ${describeApiStatus(err.apiStatus)}`);
  }
}
