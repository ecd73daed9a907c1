import { describe, expect, it } from 'vitest';
import { DEFAULT_BACKOFF, type BackoffOptions } from '../../src/adapters/meross/meross-backoff.js';
import { initialSession, next, type Transition } from '../../src/adapters/meross/meross-session.machine.js';
import type { SessionEffect, SessionEvent, SessionFailure, SessionMemory, SessionPhase, SessionState } from '../../src/adapters/meross/meross-session.state.js';
import type { MerossDeviceDefinition } from '../../src/adapters/meross/meross-library.js';

// The Meross session's transitions, without I/O or timers: every event in every state where it matters.
const NOW = Date.parse('2026-01-01T00:00:00Z');
const WAITS: BackoffOptions = DEFAULT_BACKOFF;
const LIST: MerossDeviceDefinition[] = [{ uuid: 'plug1', deviceType: 'mss310' }];
const MEMORY: SessionMemory = initialSession(undefined).memory;

const api = (code: number): SessionFailure => ({ kind: 'api', code, message: `cloud error ${code}` });
const network: SessionFailure = { kind: 'network', code: null, message: 'ECONNREFUSED' };
const http503: SessionFailure = { kind: 'http', code: null, message: 'HTTP 503' };

function state(phase: SessionPhase, memory: Partial<SessionMemory> = {}): SessionState {
  return { ...phase, memory: { ...MEMORY, ...memory } } as SessionState;
}

const connectingAt = (step: 'loading-token' | 'checking-token' | 'dropping-token', memory: Partial<SessionMemory> = {}) =>
  state({ kind: 'connecting', step }, memory);
const loggingIn = (withCode = false, memory: Partial<SessionMemory> = {}) => state({ kind: 'connecting', step: 'logging-in', withCode }, memory);

function step(from: SessionState, event: SessionEvent, now = NOW, waits = WAITS): Transition {
  return next(from, event, now, waits);
}

/** The effects without log lines: what the adapter must do. */
const actions = (t: Transition): SessionEffect[] => t.effects.filter((e) => e.type !== 'log');
const logs = (t: Transition): string[] => t.effects.flatMap((e) => (e.type === 'log' ? [`${e.level}: ${e.message}`] : []));

describe('the Meross session machine', () => {
  describe('transitions', () => {
    const cases: Array<{
      name: string;
      from: SessionState;
      event: SessionEvent;
      to: Partial<SessionPhase>;
      effects: SessionEffect[];
      memory?: Partial<SessionMemory>;
    }> = [
      // idle
      {
        name: 'idle + start loads the token',
        from: initialSession(undefined),
        event: { type: 'start' },
        to: { kind: 'connecting', step: 'loading-token' },
        effects: [{ type: 'loadToken' }],
      },
      { name: 'idle ignores a retry timer', from: initialSession(undefined), event: { type: 'retryDue', hasToken: false }, to: { kind: 'idle' }, effects: [] },
      // loading the token
      {
        name: 'a saved token is checked with the device list',
        from: connectingAt('loading-token'),
        event: { type: 'tokenLoaded', found: true, mfa: false },
        to: { kind: 'connecting', step: 'checking-token' },
        effects: [{ type: 'fetchList' }],
      },
      {
        name: 'without a saved token it logs in',
        from: connectingAt('loading-token'),
        event: { type: 'tokenLoaded', found: false, mfa: false },
        to: { kind: 'connecting', step: 'logging-in', withCode: false },
        effects: [{ type: 'login', mfaCode: undefined }],
      },
      {
        name: 'a configured MFA code goes with the first login, once',
        from: connectingAt('loading-token', { mfa: true, unusedCode: '123456' }),
        event: { type: 'tokenLoaded', found: false, mfa: false },
        to: { kind: 'connecting', step: 'logging-in', withCode: true },
        effects: [{ type: 'login', mfaCode: '123456' }],
        memory: { unusedCode: undefined, mfa: true },
      },
      {
        name: 'a saved MFA token marks the account as MFA',
        from: connectingAt('loading-token'),
        event: { type: 'tokenLoaded', found: true, mfa: true },
        to: { kind: 'connecting', step: 'checking-token' },
        effects: [{ type: 'fetchList' }],
        memory: { mfa: true },
      },
      // checking the token
      {
        name: 'a working token connects without a login',
        from: connectingAt('checking-token', { apiFailures: 3 }),
        event: { type: 'listFetched', list: LIST },
        to: { kind: 'connected', list: LIST },
        effects: [{ type: 'announce' }],
        memory: { apiFailures: 0 },
      },
      {
        name: 'a rejected token (1022) is dropped',
        from: connectingAt('checking-token'),
        event: { type: 'listFailed', failure: api(1022) },
        to: { kind: 'connecting', step: 'dropping-token' },
        effects: [{ type: 'dropToken' }],
      },
      {
        name: 'a rejected token (1019) is dropped',
        from: connectingAt('checking-token'),
        event: { type: 'listFailed', failure: api(1019) },
        to: { kind: 'connecting', step: 'dropping-token' },
        effects: [{ type: 'dropToken' }],
      },
      {
        name: 'an unreachable API backs off (retry backoff)',
        from: connectingAt('checking-token'),
        event: { type: 'listFailed', failure: network },
        to: { kind: 'backingOff', until: NOW + 5_000 },
        effects: [{ type: 'announce' }, { type: 'armRetry', at: NOW + 5_000 }],
        memory: { apiFailures: 1 },
      },
      {
        name: 'a throttle code on the token check locks out',
        from: connectingAt('checking-token'),
        event: { type: 'listFailed', failure: api(1028) },
        to: { kind: 'lockedOut', until: NOW + 15 * 60_000, code: 1028 },
        effects: [{ type: 'announce' }, { type: 'armRetry', at: NOW + 15 * 60_000 }],
      },
      // dropping the token
      {
        name: 'after the token is dropped it logs in',
        from: connectingAt('dropping-token'),
        event: { type: 'tokenDropped' },
        to: { kind: 'connecting', step: 'logging-in', withCode: false },
        effects: [{ type: 'login', mfaCode: undefined }],
      },
      {
        name: 'an MFA account without a fresh code waits instead of a refused login',
        from: connectingAt('dropping-token', { mfa: true }),
        event: { type: 'tokenDropped' },
        to: { kind: 'needsMfa', code: null },
        effects: [{ type: 'announce' }],
      },
      // logging in
      {
        name: 'a login saves its token before the session counts as connected',
        from: loggingIn(false, { loginFailures: 2 }),
        event: { type: 'loginSucceeded', list: LIST },
        to: { kind: 'connecting', step: 'saving-token', list: LIST },
        effects: [{ type: 'saveToken', mfa: false }],
        memory: { loginFailures: 0 },
      },
      {
        name: 'a login with a code saves the token as an MFA one',
        from: loggingIn(true),
        event: { type: 'loginSucceeded', list: LIST },
        to: { kind: 'connecting', step: 'saving-token', list: LIST },
        effects: [{ type: 'saveToken', mfa: true }],
        memory: { mfa: true },
      },
      {
        name: 'wrong credentials (1004) fail for good',
        from: loggingIn(),
        event: { type: 'loginFailed', failure: api(1004), tokenIssued: false },
        to: { kind: 'failed', code: 1004 },
        effects: [{ type: 'announce' }],
        memory: { loginFailures: 1 },
      },
      {
        name: 'a disabled account (1003) fails for good',
        from: loggingIn(),
        event: { type: 'loginFailed', failure: api(1003), tokenIssued: false },
        to: { kind: 'failed', code: 1003 },
        effects: [{ type: 'announce' }],
        memory: { loginFailures: 1 },
      },
      {
        name: 'MFA required (1033) waits for a code',
        from: loggingIn(),
        event: { type: 'loginFailed', failure: api(1033), tokenIssued: false },
        to: { kind: 'needsMfa', code: 1033 },
        effects: [{ type: 'announce' }],
        memory: { mfa: true, loginFailures: 1 },
      },
      {
        name: 'MFA code rejected (1032) waits for another',
        from: loggingIn(true),
        event: { type: 'loginFailed', failure: api(1032), tokenIssued: false },
        to: { kind: 'needsMfa', code: 1032 },
        effects: [{ type: 'announce' }],
        memory: { mfa: true, loginFailures: 1 },
      },
      {
        name: 'too many tokens (1301) locks out for tooManyTokensWaitMs',
        from: loggingIn(),
        event: { type: 'loginFailed', failure: api(1301), tokenIssued: false },
        to: { kind: 'lockedOut', until: NOW + 5 * 3_600_000, code: 1301 },
        effects: [{ type: 'announce' }, { type: 'armRetry', at: NOW + 5 * 3_600_000 }],
        memory: { loginFailures: 1 },
      },
      {
        name: 'an operation lock (1035) locks out for an hour',
        from: loggingIn(),
        event: { type: 'loginFailed', failure: api(1035), tokenIssued: false },
        to: { kind: 'lockedOut', until: NOW + 3_600_000, code: 1035 },
        effects: [{ type: 'announce' }, { type: 'armRetry', at: NOW + 3_600_000 }],
        memory: { loginFailures: 1 },
      },
      {
        name: 'a refused login backs off with the login backoff',
        from: loggingIn(),
        event: { type: 'loginFailed', failure: api(1030), tokenIssued: false },
        to: { kind: 'backingOff', until: NOW + 60_000 },
        effects: [{ type: 'announce' }, { type: 'armRetry', at: NOW + 60_000 }],
        memory: { loginFailures: 1, apiFailures: 0 },
      },
      {
        name: 'an unreachable API at login is an outage, not a refused login',
        from: loggingIn(),
        event: { type: 'loginFailed', failure: http503, tokenIssued: false },
        to: { kind: 'backingOff', until: NOW + 5_000 },
        effects: [{ type: 'announce' }, { type: 'armRetry', at: NOW + 5_000 }],
        memory: { loginFailures: 0, apiFailures: 1 },
      },
      {
        name: 'a new token refused at once is kept and counted against the login',
        from: loggingIn(),
        event: { type: 'loginFailed', failure: api(1022), tokenIssued: true },
        to: { kind: 'backingOff', until: NOW + 60_000 },
        effects: [{ type: 'announce' }, { type: 'saveToken', mfa: false }, { type: 'armRetry', at: NOW + 60_000 }],
        memory: { loginFailures: 1 },
      },
      {
        name: 'a cloud error after a token was issued is not held against the login',
        from: loggingIn(),
        event: { type: 'loginFailed', failure: api(5000), tokenIssued: true },
        to: { kind: 'backingOff', until: NOW + 5_000 },
        effects: [{ type: 'announce' }, { type: 'saveToken', mfa: false }, { type: 'armRetry', at: NOW + 5_000 }],
        memory: { loginFailures: 0, apiFailures: 1 },
      },
      // saving the token
      {
        name: 'the saved token completes the login',
        from: state({ kind: 'connecting', step: 'saving-token', list: LIST }, { apiFailures: 2 }),
        event: { type: 'tokenSaved' },
        to: { kind: 'connected', list: LIST },
        effects: [{ type: 'announce' }],
        memory: { apiFailures: 0 },
      },
      // connected
      {
        name: 'a new list replaces the old one',
        from: state({ kind: 'connected', list: [] }),
        event: { type: 'listFetched', list: LIST },
        to: { kind: 'connected', list: LIST },
        effects: [],
      },
      {
        name: 'a rejected token while connected logs in again',
        from: state({ kind: 'connected', list: LIST }),
        event: { type: 'listFailed', failure: api(1200) },
        to: { kind: 'connecting', step: 'dropping-token' },
        effects: [{ type: 'announce' }, { type: 'dropToken' }],
      },
      {
        name: 'a throttle code while connected stops the session',
        from: state({ kind: 'connected', list: LIST }),
        event: { type: 'listFailed', failure: api(1042) },
        to: { kind: 'lockedOut', until: NOW + 3_600_000, code: 1042 },
        effects: [{ type: 'announce' }, { type: 'armRetry', at: NOW + 3_600_000 }],
      },
      {
        name: 'an MFA code while connected waits for a code',
        from: state({ kind: 'connected', list: LIST }),
        event: { type: 'listFailed', failure: api(1033) },
        to: { kind: 'needsMfa', code: 1033 },
        effects: [{ type: 'announce' }],
        memory: { mfa: true },
      },
      {
        name: 'a cloud error while connected is recorded, the session stays up',
        from: state({ kind: 'connected', list: LIST }),
        event: { type: 'listFailed', failure: api(5000) },
        to: { kind: 'connected', list: LIST },
        effects: [],
        memory: { lastError: { code: 5000, message: 'cloud error 5000', at: '2026-01-01T00:00:00.000Z' } },
      },
      {
        name: 'an unreachable API while connected is recorded, the session stays up',
        from: state({ kind: 'connected', list: LIST }),
        event: { type: 'listFailed', failure: network },
        to: { kind: 'connected', list: LIST },
        effects: [],
        memory: { apiFailures: 0, lastError: { code: 'network', message: 'ECONNREFUSED', at: '2026-01-01T00:00:00.000Z' } },
      },
      {
        name: 'connected ignores a stale retry timer',
        from: state({ kind: 'connected', list: LIST }),
        event: { type: 'retryDue', hasToken: true },
        to: { kind: 'connected' },
        effects: [],
      },
      // backing off and locked out
      {
        name: 'backing off: a timer that fires early waits out the rest',
        from: state({ kind: 'backingOff', until: NOW + 10 }),
        event: { type: 'retryDue', hasToken: true },
        to: { kind: 'backingOff', until: NOW + 10 },
        effects: [{ type: 'armRetry', at: NOW + 10 }],
      },
      {
        name: 'backing off: the due retry checks the token it has',
        from: state({ kind: 'backingOff', until: NOW }),
        event: { type: 'retryDue', hasToken: true },
        to: { kind: 'connecting', step: 'checking-token' },
        effects: [{ type: 'announce' }, { type: 'fetchList' }],
      },
      {
        name: 'backing off: the due retry logs in without a token',
        from: state({ kind: 'backingOff', until: NOW }),
        event: { type: 'retryDue', hasToken: false },
        to: { kind: 'connecting', step: 'logging-in' },
        effects: [{ type: 'announce' }, { type: 'login', mfaCode: undefined }],
      },
      {
        name: 'backing off: an MFA code is not asked for',
        from: state({ kind: 'backingOff', until: NOW }),
        event: { type: 'mfaCodeSubmitted', code: '1', hasToken: false },
        to: { kind: 'backingOff' },
        effects: [],
      },
      {
        name: 'locked out: nothing is sent before the end',
        from: state({ kind: 'lockedOut', until: NOW + 1, code: 1301 }),
        event: { type: 'retryDue', hasToken: false },
        to: { kind: 'lockedOut' },
        effects: [{ type: 'armRetry', at: NOW + 1 }],
      },
      {
        name: 'locked out: at the end it tries again',
        from: state({ kind: 'lockedOut', until: NOW, code: 1301 }),
        event: { type: 'retryDue', hasToken: false },
        to: { kind: 'connecting', step: 'logging-in' },
        effects: [{ type: 'announce' }, { type: 'login', mfaCode: undefined }],
      },
      // needs MFA
      {
        name: 'needs MFA: a submitted code goes with one login at once',
        from: state({ kind: 'needsMfa', code: null }, { mfa: true, loginFailures: 3 }),
        event: { type: 'mfaCodeSubmitted', code: '246802', hasToken: false },
        to: { kind: 'connecting', step: 'logging-in', withCode: true },
        effects: [{ type: 'announce' }, { type: 'login', mfaCode: '246802' }],
        memory: { unusedCode: undefined },
      },
      {
        name: 'needs MFA: no timer logs in',
        from: state({ kind: 'needsMfa', code: 1033 }),
        event: { type: 'retryDue', hasToken: false },
        to: { kind: 'needsMfa' },
        effects: [],
      },
      // failed
      {
        name: 'failed: no timer logs in',
        from: state({ kind: 'failed', code: 1004 }),
        event: { type: 'retryDue', hasToken: false },
        to: { kind: 'failed' },
        effects: [],
      },
      {
        name: 'failed: an MFA code does not log in',
        from: state({ kind: 'failed', code: 1004 }),
        event: { type: 'mfaCodeSubmitted', code: '1', hasToken: false },
        to: { kind: 'failed' },
        effects: [],
      },
      // stop, from every state
      ...(['idle', 'connecting', 'connected', 'backingOff', 'lockedOut', 'needsMfa', 'failed'] as const).map((kind) => ({
        name: `stop from ${kind} cancels the retry and closes the connections`,
        from: stateOfKind(kind),
        event: { type: 'stop' } as SessionEvent,
        to: { kind: 'stopped' } as Partial<SessionPhase>,
        effects: [{ type: 'cancelRetry' }, { type: 'closeConnections' }] as SessionEffect[],
      })),
      // stopped
      {
        name: 'stopped: a login that lands closes its connections and keeps the token',
        from: stopped(),
        event: { type: 'loginSucceeded', list: LIST },
        to: { kind: 'stopped' },
        effects: [{ type: 'closeConnections' }, { type: 'saveToken', mfa: false }],
      },
      {
        name: 'stopped: a list that lands closes its connections',
        from: stopped(),
        event: { type: 'listFetched', list: LIST },
        to: { kind: 'stopped' },
        effects: [{ type: 'closeConnections' }],
      },
      {
        name: 'stopped: a failed login that issued a token keeps it',
        from: stopped(),
        event: { type: 'loginFailed', failure: api(1022), tokenIssued: true },
        to: { kind: 'stopped' },
        effects: [{ type: 'saveToken', mfa: false }],
      },
      {
        name: 'stopped: a loaded token starts nothing',
        from: stopped(),
        event: { type: 'tokenLoaded', found: true, mfa: false },
        to: { kind: 'stopped' },
        effects: [],
      },
      { name: 'stopped: a stale timer starts nothing', from: stopped(), event: { type: 'retryDue', hasToken: true }, to: { kind: 'stopped' }, effects: [] },
      { name: 'stopped: a second stop does nothing', from: stopped(), event: { type: 'stop' }, to: { kind: 'stopped' }, effects: [] },
    ];

    it.each(cases)('$name', ({ from, event, to, effects, memory }) => {
      const result = step(from, event);

      expect(result.state).toMatchObject(to);
      expect(actions(result)).toEqual(effects);
      if (memory) expect(result.state.memory).toMatchObject(memory);
    });

    it('records an error seen elsewhere (a broker) in any state without announcing it', () => {
      for (const kind of ['connecting', 'connected', 'backingOff', 'stopped'] as const) {
        const result = step(stateOfKind(kind), { type: 'errorSeen', code: 'mqtt', message: 'refused' });

        expect(result.state.kind).toBe(kind);
        expect(result.state.memory.lastError).toEqual({ code: 'mqtt', message: 'refused', at: '2026-01-01T00:00:00.000Z' });
        expect(result.effects).toEqual([]);
      }
    });

    it('keeps showing after stop what it showed before', () => {
      const locked = state({ kind: 'lockedOut', until: NOW + 60_000, code: 1301 });

      const result = step(locked, { type: 'stop' });

      expect(result.state).toMatchObject({ kind: 'stopped', shown: { state: 'locked-out', retryAt: NOW + 60_000 } });
      expect(result.effects.some((e) => e.type === 'announce')).toBe(false);
    });

    it('logs an unknown code once with its number and retries it with the backoff', () => {
      const first = step(loggingIn(), { type: 'loginFailed', failure: api(4242), tokenIssued: false });
      const again = step({ ...loggingIn(), memory: first.state.memory }, { type: 'loginFailed', failure: api(4242), tokenIssued: false });

      expect(first.state).toMatchObject({ kind: 'backingOff', until: NOW + 60_000 });
      expect(logs(first)).toContain('error: the Meross cloud answered an unknown error code 4242; backing off');
      expect(logs(again).filter((l) => l.includes('unknown error code'))).toEqual([]);
      expect(again.state).toMatchObject({ kind: 'backingOff', until: NOW + 120_000 });
    });

    it('records the failure with the clock time, and logs what /health will show', () => {
      const result = step(loggingIn(), { type: 'loginFailed', failure: api(1301), tokenIssued: false }, NOW + 1_000);

      expect(result.state.memory.lastError).toEqual({ code: 1301, message: 'cloud error 1301', at: '2026-01-01T00:00:01.000Z' });
      expect(logs(result)).toEqual(['error: meross account locked out: too many tokens issued; the account is temporarily locked; sending nothing until then']);
    });

    it('uses lockoutWaitMs for every lock-out code but 1301', () => {
      const waits = { ...WAITS, lockoutWaitMs: 1_000, tooManyTokensWaitMs: 2_000 };

      const throttled = step(loggingIn(), { type: 'loginFailed', failure: api(1028), tokenIssued: false }, NOW, waits);
      const tooMany = step(loggingIn(), { type: 'loginFailed', failure: api(1301), tokenIssued: false }, NOW, waits);

      expect(throttled.state).toMatchObject({ kind: 'lockedOut', until: NOW + 1_000 });
      expect(tooMany.state).toMatchObject({ kind: 'lockedOut', until: NOW + 2_000 });
    });
  });

  describe('the backoff sequence', () => {
    /** The waits after `count` consecutive failures, each attempt beginning when the previous wait is over. */
    function waitsAfter(count: number, fail: (s: SessionState, now: number) => Transition): number[] {
      let now = NOW;
      let current = step(initialSession(undefined), { type: 'start' }).state;
      current = step(current, { type: 'tokenLoaded', found: false, mfa: false }).state;
      const waits: number[] = [];
      for (let i = 0; i < count; i++) {
        const failed = fail(current, now).state;
        if (failed.kind !== 'backingOff') throw new Error(`expected backingOff, got ${failed.kind}`);
        waits.push(failed.until - now);
        now = failed.until;
        current = step(failed, { type: 'retryDue', hasToken: false }, now).state;
      }
      return waits;
    }

    it('doubles the login wait from 1 minute up to 30 minutes after consecutive refused logins', () => {
      const waits = waitsAfter(8, (s, now) => step(s, { type: 'loginFailed', failure: api(1030), tokenIssued: false }, now));

      expect(waits).toEqual([60_000, 120_000, 240_000, 480_000, 960_000, 1_800_000, 1_800_000, 1_800_000]);
    });

    it('doubles the outage wait from 5 s up to 30 minutes while the API is unreachable', () => {
      const waits = waitsAfter(12, (s, now) => step(s, { type: 'loginFailed', failure: network, tokenIssued: false }, now));

      expect(waits).toEqual([5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 320_000, 640_000, 1_280_000, 1_800_000, 1_800_000, 1_800_000]);
    });

    it('keeps the two counts apart, and a connection resets the outage count only', () => {
      const refused = step(loggingIn(), { type: 'loginFailed', failure: api(1030), tokenIssued: false });
      const outage = step({ ...loggingIn(), memory: refused.state.memory }, { type: 'loginFailed', failure: network, tokenIssued: false });
      const refusedAgain = step({ ...loggingIn(), memory: outage.state.memory }, { type: 'loginFailed', failure: api(1030), tokenIssued: false });
      const up = step(connectingAt('checking-token', refusedAgain.state.memory), { type: 'listFetched', list: LIST });

      expect([refused, outage, refusedAgain].map((t) => (t.state.kind === 'backingOff' ? t.state.until - NOW : null))).toEqual([60_000, 5_000, 120_000]);
      expect(up.state.memory).toMatchObject({ loginFailures: 2, apiFailures: 0 });
    });

    it('follows the configured waits (the adapter tests use 300 ms up to 2 s)', () => {
      const waits = { ...WAITS, loginBackoffMs: 300, retryBackoffMs: 300, maxBackoffMs: 2_000 };
      const sequence = waitsAfter(5, (s, now) => step(s, { type: 'loginFailed', failure: api(1030), tokenIssued: false }, now, waits));

      expect(sequence).toEqual([300, 600, 1_200, 2_000, 2_000]);
    });
  });
});

function stopped(): SessionState {
  return state({ kind: 'stopped', shown: { state: 'connecting', retryAt: null, action: null } });
}

function stateOfKind(kind: 'idle' | 'connecting' | 'connected' | 'backingOff' | 'lockedOut' | 'needsMfa' | 'failed' | 'stopped'): SessionState {
  switch (kind) {
    case 'idle':
      return initialSession(undefined);
    case 'connecting':
      return loggingIn();
    case 'connected':
      return state({ kind: 'connected', list: LIST });
    case 'backingOff':
      return state({ kind: 'backingOff', until: NOW + 5_000 });
    case 'lockedOut':
      return state({ kind: 'lockedOut', until: NOW + 60_000, code: 1301 });
    case 'needsMfa':
      return state({ kind: 'needsMfa', code: 1033 });
    case 'failed':
      return state({ kind: 'failed', code: 1004 });
    case 'stopped':
      return stopped();
  }
}
