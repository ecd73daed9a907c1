import { describeApiStatus, isKnownApiStatus, reactionTo, TOO_MANY_TOKENS, type CodeReaction } from './meross-codes.js';
import type { MerossDeviceDefinition } from './meross-library.js';
import { backoffDelay, type BackoffOptions } from './meross-backoff.js';
import { sameView, viewOf, type SessionEffect, type SessionEvent, type SessionFailure, type SessionMemory, type SessionState } from './meross-session.state.js';

/** A new state and what the adapter must do for it, in order. */
export interface Transition {
  state: SessionState;
  effects: SessionEffect[];
}

/** The session before start; a configured MFA code is used at the first login. */
export function initialSession(mfaCode: string | undefined): SessionState {
  return {
    kind: 'idle',
    memory: { loginFailures: 0, apiFailures: 0, mfa: mfaCode !== undefined, unusedCode: mfaCode, lastError: null, unknownCodesLogged: [] },
  };
}

/**
 * The Meross session's transitions: pure, no I/O and no timers (`now` is the injected clock's time). An event a state
 * does not wait for (a stale timer, a late result) changes nothing. A change of what /health shows is announced.
 */
export function next(state: SessionState, event: SessionEvent, now: number, waits: BackoffOptions): Transition {
  const transition = react(state, event, now, waits);
  if (!sameView(viewOf(state), viewOf(transition.state))) transition.effects.unshift({ type: 'announce' });
  return transition;
}

function react(state: SessionState, event: SessionEvent, now: number, waits: BackoffOptions): Transition {
  const { memory } = state;
  if (event.type === 'errorSeen') {
    return stay({ ...state, memory: { ...memory, lastError: { code: event.code, message: event.message, at: iso(now) } } });
  }
  if (event.type === 'stop') {
    if (state.kind === 'stopped') return stay(state);
    return { state: { kind: 'stopped', shown: viewOf(state), memory }, effects: [{ type: 'cancelRetry' }, { type: 'closeConnections' }] };
  }
  switch (state.kind) {
    case 'idle':
      return event.type === 'start' ? { state: { kind: 'connecting', step: 'loading-token', memory }, effects: [{ type: 'loadToken' }] } : stay(state);
    case 'connecting':
      return connecting(state, event, now, waits);
    case 'connected':
      if (event.type === 'listFetched') return stay({ ...state, list: event.list });
      if (event.type === 'listFailed') return connectedListFailed(state, event.failure, now, waits);
      return stay(state);
    case 'backingOff':
    case 'lockedOut':
      if (event.type !== 'retryDue') return stay(state);
      // A timer that fired a little early waits out the rest: nothing is sent before `until`.
      if (now < state.until) return { state, effects: [{ type: 'armRetry', at: state.until }] };
      return attempt(memory, event.hasToken);
    case 'needsMfa':
      // The user asked for exactly one login now: no backoff applies to it.
      return event.type === 'mfaCodeSubmitted' ? attempt({ ...memory, unusedCode: event.code }, event.hasToken) : stay(state);
    case 'failed':
      return stay(state);
    case 'stopped':
      return afterStop(state, event);
  }
}

type Connecting = Extract<SessionState, { kind: 'connecting' }>;

function connecting(state: Connecting, event: SessionEvent, now: number, waits: BackoffOptions): Transition {
  const { memory } = state;
  if (state.step === 'loading-token' && event.type === 'tokenLoaded') {
    const remembered = { ...memory, mfa: memory.mfa || event.mfa };
    if (!event.found) return loginOrWait(remembered);
    return {
      state: { kind: 'connecting', step: 'checking-token', memory: remembered },
      effects: [log('info', 'reusing the saved meross session token'), { type: 'fetchList' }],
    };
  }
  if (state.step === 'checking-token' && event.type === 'listFetched') return connected(memory, event.list);
  if (state.step === 'checking-token' && event.type === 'listFailed') {
    if (reactionOf(event.failure).kind === 'relogin') return relogin(memory, event.failure, 'the cloud rejected the saved token; logging in again');
    return afterFailure(memory, event.failure, null, now, waits);
  }
  if (state.step === 'dropping-token' && event.type === 'tokenDropped') return loginOrWait(memory);
  if (state.step === 'logging-in' && event.type === 'loginSucceeded') {
    const mfa = memory.mfa || state.withCode;
    return {
      state: { kind: 'connecting', step: 'saving-token', list: event.list, memory: { ...memory, loginFailures: 0, mfa } },
      effects: [{ type: 'saveToken', mfa }],
    };
  }
  if (state.step === 'logging-in' && event.type === 'loginFailed') return loginFailed(memory, state.withCode, event, now, waits);
  if (state.step === 'saving-token' && event.type === 'tokenSaved') return connected(memory, state.list);
  return stay(state);
}

function loginFailed(
  remembered: SessionMemory,
  withCode: boolean,
  { failure, tokenIssued }: Extract<SessionEvent, { type: 'loginFailed' }>,
  now: number,
  waits: BackoffOptions,
): Transition {
  const mfa = remembered.mfa || withCode;
  const reaction = reactionOf(failure);
  // An unreachable API issued no token: that is retried like any outage, not held against the login.
  const unreachable = failure.kind === 'network' || failure.kind === 'http';
  const counted = (!tokenIssued && !unreachable) || reaction.kind === 'relogin';
  const loginFailures = remembered.loginFailures + (counted ? 1 : 0);
  let loginWait: number | null = null;
  if (counted)
    loginWait =
      reaction.kind === 'lockout' ? lockoutWait(failure.code!, reaction, waits) : backoffDelay(waits.loginBackoffMs, loginFailures, waits.maxBackoffMs);
  const memory = { ...remembered, loginFailures, mfa };
  const outcome = afterFailure(memory, failure, loginWait, now, waits);
  // A token the cloud issued is kept, even when what followed the login failed.
  if (tokenIssued) outcome.effects.unshift({ type: 'saveToken', mfa });
  return outcome;
}

function connectedListFailed(state: Extract<SessionState, { kind: 'connected' }>, failure: SessionFailure, now: number, waits: BackoffOptions): Transition {
  const reaction = reactionOf(failure);
  if (reaction.kind === 'relogin') return relogin(state.memory, failure, 'the cloud rejected the session token; logging in again');
  // A lock-out, refused credentials or MFA stop the whole session, wherever the code came from.
  if (failure.code !== null && ['lockout', 'credentials', 'mfa'].includes(reaction.kind)) return afterFailure(state.memory, failure, null, now, waits);
  return stay({ ...state, memory: recorded(state.memory, failure, now) });
}

/** Puts the session in the state a failure calls for and arms the next attempt where one is due. */
function afterFailure(remembered: SessionMemory, failure: SessionFailure, loginWait: number | null, now: number, waits: BackoffOptions): Transition {
  let memory = recorded(remembered, failure, now);
  const effects: SessionEffect[] = [];
  const { code } = failure;
  const reaction = reactionOf(failure);
  if (code !== null && !isKnownApiStatus(code) && !memory.unknownCodesLogged.includes(code)) {
    memory = { ...memory, unknownCodesLogged: [...memory.unknownCodesLogged, code] };
    effects.push(log('error', `the Meross cloud answered an unknown error code ${code}; backing off`, { code }));
  }
  if (code !== null && reaction.kind === 'credentials') {
    effects.push(log('error', 'meross login refused; fix the credentials and restart', { code }));
    return { state: { kind: 'failed', code, memory }, effects };
  }
  if (reaction.kind === 'mfa') {
    effects.push(log('warn', 'the meross login needs an MFA code: POST /cloud/login with {"mfaCode":"..."}', { code }));
    return { state: { kind: 'needsMfa', code, memory: { ...memory, mfa: true } }, effects };
  }
  if (code !== null && reaction.kind === 'lockout') {
    const until = now + lockoutWait(code, reaction, waits);
    effects.push(log('error', `meross account locked out: ${describeApiStatus(code)}; sending nothing until then`, { code, retryAt: iso(until) }));
    effects.push({ type: 'armRetry', at: until });
    return { state: { kind: 'lockedOut', until, code, memory }, effects };
  }
  let delay = loginWait;
  if (delay === null) {
    memory = { ...memory, apiFailures: memory.apiFailures + 1 };
    delay = backoffDelay(waits.retryBackoffMs, memory.apiFailures, waits.maxBackoffMs);
  }
  effects.push(log('warn', `meross session not up: ${failure.message}`, { code: code ?? failure.kind, retryInMs: delay }));
  effects.push({ type: 'armRetry', at: now + delay });
  return { state: { kind: 'backingOff', until: now + delay, memory }, effects };
}

/** After stop nothing new is sent; a login or list still on its way closes the broker connections it opened. */
function afterStop(state: Extract<SessionState, { kind: 'stopped' }>, event: SessionEvent): Transition {
  const effects: SessionEffect[] = [];
  if (event.type === 'loginSucceeded' || event.type === 'listFetched') {
    effects.push({ type: 'closeConnections' }, log('info', 'the meross session was stopped while connecting; closed the connections its device list opened'));
  }
  if (event.type === 'loginSucceeded' || (event.type === 'loginFailed' && event.tokenIssued)) effects.push({ type: 'saveToken', mfa: state.memory.mfa });
  return { state, effects };
}

/** Starts an attempt: with a token, its device list proves it; without, a login (or a wait for a code). */
function attempt(memory: SessionMemory, hasToken: boolean): Transition {
  if (!hasToken) return loginOrWait(memory);
  return { state: { kind: 'connecting', step: 'checking-token', memory }, effects: [{ type: 'fetchList' }] };
}

function relogin(memory: SessionMemory, failure: SessionFailure, message: string): Transition {
  return { state: { kind: 'connecting', step: 'dropping-token', memory }, effects: [log('warn', message, { code: failure.code }), { type: 'dropToken' }] };
}

/** A login uses the unused code; an MFA account without one would only be refused, so none is sent. */
function loginOrWait(memory: SessionMemory): Transition {
  const code = memory.unusedCode;
  if (memory.mfa && !code) {
    return {
      state: { kind: 'needsMfa', code: null, memory },
      effects: [log('warn', 'the meross session needs a new MFA code: POST /cloud/login with {"mfaCode":"..."}')],
    };
  }
  return {
    state: { kind: 'connecting', step: 'logging-in', withCode: code !== undefined, memory: { ...memory, unusedCode: undefined } },
    effects: [log('info', 'logging in to the meross cloud', { withMfaCode: code !== undefined }), { type: 'login', mfaCode: code }],
  };
}

function connected(memory: SessionMemory, list: readonly MerossDeviceDefinition[]): Transition {
  return {
    state: { kind: 'connected', list, memory: { ...memory, apiFailures: 0 } },
    effects: [log('info', 'meross cloud session connected', { devices: list.length })],
  };
}

function recorded(memory: SessionMemory, failure: SessionFailure, now: number): SessionMemory {
  return { ...memory, lastError: { code: failure.code ?? failure.kind, message: failure.message, at: iso(now) } };
}

function reactionOf(failure: SessionFailure): CodeReaction {
  return failure.code === null ? { kind: 'retry' } : reactionTo(failure.code);
}

function lockoutWait(code: number, reaction: Extract<CodeReaction, { kind: 'lockout' }>, waits: BackoffOptions): number {
  if (code === TOO_MANY_TOKENS) return waits.tooManyTokensWaitMs;
  return waits.lockoutWaitMs ?? reaction.waitMs;
}

function log(level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>): SessionEffect {
  return fields ? { type: 'log', level, message, fields } : { type: 'log', level, message };
}

function stay(state: SessionState): Transition {
  return { state, effects: [] };
}

function iso(now: number): string {
  return new Date(now).toISOString();
}
