import type { CloudSessionState, CloudStatus, TokenStoreStatus } from '../../domain/device-cloud.js';
import { describeApiStatus, TOO_MANY_TOKENS, type CloudFailureKind } from './meross-codes.js';
import type { MerossDeviceDefinition } from './meross-library.js';
import { USER_ACTION } from './meross-backoff.js';

/** A failed call as the session sees it: its kind, the Meross apiStatus if any, and a message without secrets. */
export interface SessionFailure {
  kind: CloudFailureKind;
  code: number | null;
  message: string;
}

/** What the session carries from one state to the next. */
export interface SessionMemory {
  /** Consecutive logins the cloud refused (or whose new token it refused at once); 0 after a successful login. */
  readonly loginFailures: number;
  /** Consecutive attempts that failed otherwise (API unreachable, a cloud error); 0 once connected. */
  readonly apiFailures: number;
  /** The account asks for an MFA code at login (a code was configured or given, the cloud asked, or the token says so). */
  readonly mfa: boolean;
  /** A code not yet used: each is good for one login at most (they change every 30 s). */
  readonly unusedCode: string | undefined;
  /** The last failure of the session (login, API or broker), as /health shows it. */
  readonly lastError: CloudStatus['lastError'];
  /** Unknown apiStatus codes already logged: each is logged once with its number. */
  readonly unknownCodesLogged: readonly number[];
}

/** The steps of one attempt to bring the session up; each waits for the result of one effect. */
export type ConnectingStep =
  | { step: 'loading-token' }
  | { step: 'checking-token' }
  | { step: 'dropping-token' }
  | { step: 'logging-in'; withCode: boolean }
  | { step: 'saving-token'; list: readonly MerossDeviceDefinition[] };

/**
 * Where the Meross session stands. backingOff retries by itself at `until`; lockedOut sends nothing until `until`;
 * needsMfa waits for POST /cloud/login (`code`: the cloud's 1032/1033, null when no code was left to try); failed
 * waits for new credentials and a restart; stopped keeps showing what it showed when stopped.
 */
export type SessionPhase =
  | { kind: 'idle' }
  | ({ kind: 'connecting' } & ConnectingStep)
  | { kind: 'connected'; list: readonly MerossDeviceDefinition[] }
  | { kind: 'backingOff'; until: number }
  | { kind: 'lockedOut'; until: number; code: number }
  | { kind: 'needsMfa'; code: number | null }
  | { kind: 'failed'; code: number }
  | { kind: 'stopped'; shown: SessionView };

/** The session's one state value: its phase and its memory. */
export type SessionState = SessionPhase & { readonly memory: SessionMemory };

/** What happens to the session: a call of the adapter's caller, a timer, or the result of an effect. */
export type SessionEvent =
  | { type: 'start' }
  | { type: 'tokenLoaded'; found: boolean; mfa: boolean }
  | { type: 'listFetched'; list: readonly MerossDeviceDefinition[] }
  | { type: 'listFailed'; failure: SessionFailure }
  | { type: 'loginSucceeded'; list: readonly MerossDeviceDefinition[] }
  | { type: 'loginFailed'; failure: SessionFailure; tokenIssued: boolean }
  | { type: 'tokenDropped' }
  | { type: 'tokenSaved' }
  | { type: 'retryDue'; hasToken: boolean }
  | { type: 'mfaCodeSubmitted'; code: string; hasToken: boolean }
  | { type: 'errorSeen'; code: string | number | null; message: string }
  | { type: 'stop' };

/**
 * What the adapter does for a transition, in order. Each of loadToken (after checking the token file can be
 * written), fetchList, login, dropToken and saveToken ends in one event: its result.
 */
export type SessionEffect =
  | { type: 'loadToken' }
  | { type: 'fetchList' }
  | { type: 'login'; mfaCode: string | undefined }
  | { type: 'dropToken' }
  | { type: 'saveToken'; mfa: boolean }
  | { type: 'armRetry'; at: number }
  | { type: 'cancelRetry' }
  | { type: 'closeConnections' }
  | { type: 'announce' }
  | { type: 'log'; level: 'info' | 'warn' | 'error'; message: string; fields?: Record<string, unknown> };

/** The part of CloudStatus the phase decides. */
export interface SessionView {
  state: CloudSessionState;
  retryAt: number | null;
  action: string | null;
}

export function viewOf(phase: SessionPhase): SessionView {
  switch (phase.kind) {
    case 'idle':
    case 'connecting':
      return { state: 'connecting', retryAt: null, action: null };
    case 'connected':
      return { state: 'connected', retryAt: null, action: null };
    case 'backingOff':
      return { state: 'backing-off', retryAt: phase.until, action: null };
    case 'lockedOut': {
      const { code, until } = phase;
      const action = code === TOO_MANY_TOKENS ? USER_ACTION.tooManyTokens(until) : USER_ACTION.lockout(code, describeApiStatus(code), until);
      return { state: 'locked-out', retryAt: until, action };
    }
    case 'needsMfa':
      return { state: 'needs-mfa', retryAt: null, action: USER_ACTION.mfa };
    case 'failed':
      return { state: 'failed', retryAt: null, action: USER_ACTION.credentials(phase.code, describeApiStatus(phase.code)) };
    case 'stopped':
      return phase.shown;
  }
}

export function sameView(a: SessionView, b: SessionView): boolean {
  return a.state === b.state && a.retryAt === b.retryAt && a.action === b.action;
}

/** CloudStatus (/health, the dashboards, session events) as derived from the session state. */
export function cloudStatusOf(session: SessionState, tokenStore: TokenStoreStatus): CloudStatus {
  const { state, retryAt, action } = viewOf(session);
  const { lastError } = session.memory;
  return {
    backend: 'meross',
    state,
    lastError: lastError && { ...lastError },
    retryAt: retryAt === null ? null : new Date(retryAt).toISOString(),
    action,
    tokenStore,
  };
}
