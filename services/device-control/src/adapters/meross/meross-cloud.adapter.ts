import { AppError, type Logger } from '@homeops/common';
import type {
  CloudDevice,
  CloudEvent,
  CloudStatus,
  CoverReading,
  DailyEnergy,
  DeviceCloud,
  GarageDoorReading,
  HubSubDeviceReading,
  LightChange,
  LightReading,
  PowerReading,
  ValveChange,
} from '../../domain/device-cloud.js';
import { DEFAULT_BROKER_RECOVERY, type BrokerRecoveryOptions } from './meross-brokers.js';
import {
  CloudCallError,
  describeApiStatus,
  isKnownApiStatus,
  isTokenRejected,
  reactionTo,
  TOO_MANY_TOKENS,
  toAppError,
  type CodeReaction,
} from './meross-codes.js';
import { MerossDevices } from './meross-devices.js';
import { MerossHttp } from './meross-http.js';
import { createLibraryCloud, type LibraryCloud, type MerossDeviceDefinition } from './meross-library.js';
import { SecretRedactor } from './meross-secrets.js';
import { backoffDelay, DEFAULT_BACKOFF, SessionStatus, USER_ACTION, type BackoffOptions } from './meross-session.js';
import { TokenStore } from './meross-token.store.js';
import { callLibrary, DEVICE_LIST_PATH, installTransport } from './meross-transport.js';

/** A login is due but still inside its backoff window; nothing was sent. */
class LoginPostponed extends Error {}

/** A login is due for an account with MFA and no fresh code: it would only be refused, so none is sent. */
class MfaCodeNeeded extends Error {}

/** How the adapter reaches one Meross account. */
export interface MerossCloudOptions extends Partial<BackoffOptions> {
  email: string;
  password: string;
  mfaCode?: string | undefined;
  /** Default https://iotx.meross.com; a regional host or any https://host:port (a local cloud) works. */
  apiUrl?: string | undefined;
  /** Where the session token is kept between restarts (mode 0600); no persistence when omitted. */
  tokenFile?: string | undefined;
  requestTimeoutMs?: number | undefined;
  commandTimeoutMs?: number | undefined;
  /** How lost broker connections are made again (tests pass short waits). */
  brokerRecovery?: Partial<BrokerRecoveryOptions> | undefined;
  logger: Logger;
}

/**
 * The Meross cloud through meross-cloud 3.1: its login, device objects, MQTT and message signing, with the
 * library's HTTP transport replaced by MerossHttp, because that transport logs secrets, crashes on a region
 * redirect without data, reports a failed device list as an empty one and has no timeout of ours.
 */
export class MerossCloud implements DeviceCloud {
  readonly backend = 'meross' as const;
  private readonly lib: LibraryCloud;
  private readonly http: MerossHttp;
  private readonly tokens: TokenStore;
  private readonly redactor: SecretRedactor;
  private readonly devices: MerossDevices;
  private readonly session: SessionStatus;
  private readonly listeners = new Set<(event: CloudEvent) => void>();
  private readonly backoff: BackoffOptions;
  private readonly requestTimeoutMs: number;
  private readonly log: Logger;
  private attempt: Promise<void> | null = null;
  private fetching: Promise<MerossDeviceDefinition[]> | null = null;
  private capturedList: MerossDeviceDefinition[] | null = null;
  private lastList: MerossDeviceDefinition[] = [];
  private retryTimer: NodeJS.Timeout | undefined;
  private started = false;
  private stopped = false;
  private tokenLoaded = false;
  private loginFailures = 0;
  private apiFailures = 0;
  private loginNotBefore = 0;
  /** The account asks for an MFA code at login (a code was configured or given, the cloud asked, or the token says so). */
  private mfaAccount: boolean;
  /** A code not yet used: each is good for one login at most (they change every 30 s). */
  private freshMfaCode: string | undefined;
  private readonly loggedUnknownCodes = new Set<number>();

  constructor(private readonly options: MerossCloudOptions) {
    const apiUrl = new URL(options.apiUrl ?? 'https://iotx.meross.com');
    if (apiUrl.protocol !== 'https:') throw new Error('The Meross API URL must use https://');
    this.log = options.logger;
    this.backoff = { ...DEFAULT_BACKOFF, ...definedOnly(options) };
    this.requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
    const commandTimeoutMs = options.commandTimeoutMs ?? 5_000;
    this.mfaAccount = options.mfaCode !== undefined;
    this.freshMfaCode = options.mfaCode;
    this.lib = createLibraryCloud({ email: options.email, password: options.password, timeout: commandTimeoutMs });
    this.lib.httpDomain = apiUrl.host;
    this.tokens = new TokenStore(options.tokenFile, options.email, apiUrl.origin);
    this.redactor = new SecretRedactor(options.password, () => this.lib);
    this.session = new SessionStatus((status) => this.emit({ type: 'session', status }), () => this.tokens.status());
    this.http = new MerossHttp(this.requestTimeoutMs, (call) => {
      this.log.debug(call, 'meross api call');
      // A connection that failed never reached the cloud; anything answered (or left unanswered) did.
      if (call.outcome !== 'network') this.emit({ type: 'sent', via: 'api', what: call.path });
    });
    this.devices = new MerossDevices({
      lib: this.lib,
      commandTimeoutMs,
      recovery: { ...DEFAULT_BROKER_RECOVERY, ...options.brokerRecovery },
      redactor: this.redactor,
      log: this.log,
      emit: (event) => this.emit(event),
      assertSessionUp: () => this.assertSessionUp(),
      recordError: (code, message) => this.session.recordError(code, message),
    });
    installTransport(this.lib, this.http, {
      log: this.log,
      redactor: this.redactor,
      onMoved: () => {
        if (this.lib.token) void this.saveToken();
      },
      onDeviceList: (list) => {
        this.capturedList = list;
      },
    });
    this.lib.on('error', (error: unknown, uuid?: string) => this.devices.onLibraryError(error, uuid));
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    const { writable, file, error } = await this.tokens.check();
    if (writable === false) this.log.warn({ file, error }, 'the session token cannot be saved; every restart will log in again');
    void this.beginAttempt();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.devices.stop();
  }

  status(): CloudStatus {
    return this.session.snapshot();
  }

  onEvent(listener: (event: CloudEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async listDevices(): Promise<CloudDevice[]> {
    if (!this.started || this.stopped) throw this.unavailable();
    if (this.attempt) {
      await this.attempt;
      return this.connectedList();
    }
    this.assertSessionUp();
    try {
      return this.devices.describe(await this.fetchDevices());
    } catch (err) {
      if (this.stopsSession(err)) {
        this.scheduleRetry(err);
        throw this.unavailable();
      }
      if (!isTokenRejected(err)) throw this.toAppError(err);
      this.log.warn({ code: (err as CloudCallError).apiStatus }, 'the cloud rejected the session token; logging in again');
      await this.dropToken();
      await this.beginAttempt();
      return this.connectedList();
    }
  }

  async submitMfaCode(code: string): Promise<void> {
    if (this.session.current !== 'needs-mfa' || this.attempt || this.stopped) {
      throw new AppError('CLOUD_LOGIN_NOT_NEEDED', `The Meross session is ${this.session.current}; it does not wait for an MFA code`);
    }
    this.freshMfaCode = code;
    // The user asked for exactly one login now: no backoff applies to it.
    this.loginNotBefore = 0;
    await this.beginAttempt();
    const { state, lastError } = this.session.snapshot();
    if (state === 'connected') return;
    if (state === 'needs-mfa' && lastError?.code === 1032) {
      throw new AppError('MFA_CODE_REJECTED', 'The Meross cloud rejected the MFA code (error 1032: wrong or expired code)', {
        details: [{ path: 'mfaCode', message: 'wrong or expired code' }],
      });
    }
    throw this.unavailable();
  }

  readChannels(uuid: string): Promise<Array<{ channel: number; on: boolean }>> {
    return this.devices.readChannels(uuid);
  }

  setChannel(uuid: string, channel: number, on: boolean): Promise<void> {
    return this.devices.setChannel(uuid, channel, on);
  }

  readGarageDoors(uuid: string): Promise<GarageDoorReading[]> {
    return this.devices.readGarageDoors(uuid);
  }

  setGarageDoor(uuid: string, channel: number, open: boolean): Promise<GarageDoorReading> {
    return this.devices.setGarageDoor(uuid, channel, open);
  }

  readCovers(uuid: string): Promise<CoverReading[]> {
    return this.devices.readCovers(uuid);
  }

  moveCover(uuid: string, channel: number, target: number | 'stop'): Promise<void> {
    return this.devices.moveCover(uuid, channel, target);
  }

  readLight(uuid: string): Promise<LightReading[]> {
    return this.devices.readLight(uuid);
  }

  setLight(uuid: string, channel: number, change: LightChange): Promise<void> {
    return this.devices.setLight(uuid, channel, change);
  }

  readPower(uuid: string): Promise<PowerReading> {
    return this.devices.readPower(uuid);
  }

  readDailyEnergy(uuid: string): Promise<DailyEnergy[]> {
    return this.devices.readDailyEnergy(uuid);
  }

  readHub(uuid: string): Promise<HubSubDeviceReading[]> {
    return this.devices.readHub(uuid);
  }

  setValve(uuid: string, id: string, change: ValveChange): Promise<void> {
    return this.devices.setValve(uuid, id, change);
  }

  private connectedList(): CloudDevice[] {
    if (this.session.current !== 'connected') throw this.unavailable();
    return this.devices.describe(this.lastList);
  }

  private beginAttempt(): Promise<void> {
    this.attempt ??= this.connectOnce().finally(() => {
      this.attempt = null;
    });
    return this.attempt;
  }

  /** One try to bring the session up; on failure it schedules the next one, it never throws. */
  private async connectOnce(): Promise<void> {
    clearTimeout(this.retryTimer);
    this.session.set('connecting');
    try {
      await this.establish();
      if (this.stopped) return;
      this.apiFailures = 0;
      this.session.set('connected');
      this.log.info({ devices: this.lastList.length }, 'meross cloud session connected');
    } catch (err) {
      if (!this.stopped) this.scheduleRetry(err);
    }
  }

  /** Reuses the saved token; logs in only without one or when the cloud rejects it. */
  private async establish(): Promise<void> {
    if (!this.tokenLoaded) {
      this.tokenLoaded = true;
      const saved = await this.tokens.load();
      if (saved) {
        Object.assign(this.lib, {
          token: saved.token,
          key: saved.key,
          userId: saved.userId,
          userEmail: saved.userEmail,
          httpDomain: saved.domain,
          authenticated: true,
        });
        if (saved.mqttDomain) this.lib.mqttDomain = saved.mqttDomain;
        if (saved.mfa) this.mfaAccount = true;
        this.log.info('reusing the saved meross session token');
      }
    }
    if (this.lib.token) {
      try {
        await this.fetchDevices();
        return;
      } catch (err) {
        if (!isTokenRejected(err)) throw err;
        this.log.warn({ code: (err as CloudCallError).apiStatus }, 'the cloud rejected the saved token; logging in again');
        await this.dropToken();
      }
    }
    await this.login();
  }

  private async login(): Promise<void> {
    if (Date.now() < this.loginNotBefore) {
      throw new LoginPostponed('login postponed after earlier failures');
    }
    const mfaCode = this.freshMfaCode;
    this.freshMfaCode = undefined;
    if (this.mfaAccount && !mfaCode) throw new MfaCodeNeeded('the account uses MFA and no fresh code was given');
    const before = this.lib.token;
    this.log.info({ withMfaCode: mfaCode !== undefined }, 'logging in to the meross cloud');
    try {
      if (mfaCode) this.lib.options.mfaCode = mfaCode;
      // The library signs in, then fetches the device list with the new token.
      await callLibrary((done) => this.lib.login(done), this.requestTimeoutMs * 3, 'login');
      this.takeList();
      this.loginFailures = 0;
    } catch (err) {
      const signedIn = this.lib.token !== null && this.lib.token !== before;
      // An unreachable API issued no token: that is retried like any outage, not held against the login.
      const unreachable = err instanceof CloudCallError && (err.kind === 'network' || err.kind === 'http');
      if ((!signedIn && !unreachable) || isTokenRejected(err)) {
        this.loginFailures += 1;
        const reaction = err instanceof CloudCallError && err.apiStatus !== null ? reactionTo(err.apiStatus) : null;
        const wait =
          reaction?.kind === 'lockout'
            ? this.lockoutWait(err as CloudCallError, reaction)
            : backoffDelay(this.backoff.loginBackoffMs, this.loginFailures, this.backoff.maxBackoffMs);
        this.loginNotBefore = Date.now() + wait;
      }
      throw err;
    } finally {
      delete this.lib.options.mfaCode;
      if (mfaCode) this.mfaAccount = true;
      if (this.lib.token !== null && this.lib.token !== before) await this.saveToken();
    }
  }

  private lockoutWait(err: CloudCallError, reaction: Extract<CodeReaction, { kind: 'lockout' }>): number {
    if (err.apiStatus === TOO_MANY_TOKENS) return this.backoff.tooManyTokensWaitMs;
    return this.backoff.lockoutWaitMs ?? reaction.waitMs;
  }

  /** A code that stops the whole session (lock-out, refused credentials, MFA), wherever it came from. */
  private stopsSession(err: unknown): boolean {
    if (!(err instanceof CloudCallError) || err.apiStatus === null) return false;
    return ['lockout', 'credentials', 'mfa'].includes(reactionTo(err.apiStatus).kind);
  }

  /** Puts the session in the state a failure calls for and schedules the next attempt where one is due. */
  private scheduleRetry(err: unknown): void {
    clearTimeout(this.retryTimer);
    if (err instanceof MfaCodeNeeded) {
      this.log.warn('the meross session needs a new MFA code: POST /cloud/login with {"mfaCode":"..."}');
      this.session.set('needs-mfa', null, USER_ACTION.mfa);
      return;
    }
    const failure = err instanceof CloudCallError ? err : new CloudCallError('library', null, this.redactor.describe(err));
    if (!(err instanceof LoginPostponed)) {
      this.session.recordError(failure.apiStatus ?? failure.kind, this.redactor.redact(failure.message));
    }
    const code = failure.apiStatus;
    const reaction: CodeReaction = code === null ? { kind: 'retry' } : reactionTo(code);
    if (code !== null && !isKnownApiStatus(code) && !this.loggedUnknownCodes.has(code)) {
      this.loggedUnknownCodes.add(code);
      this.log.error({ code }, `the Meross cloud answered an unknown error code ${code}; backing off`);
    }
    if (code !== null && reaction.kind === 'credentials') {
      this.log.error({ code }, 'meross login refused; fix the credentials and restart');
      this.session.set('failed', null, USER_ACTION.credentials(code, describeApiStatus(code)));
      return;
    }
    if (reaction.kind === 'mfa') {
      this.mfaAccount = true;
      this.log.warn({ code }, 'the meross login needs an MFA code: POST /cloud/login with {"mfaCode":"..."}');
      this.session.set('needs-mfa', null, USER_ACTION.mfa);
      return;
    }
    if (code !== null && reaction.kind === 'lockout') {
      const until = Math.max(this.loginNotBefore, Date.now() + this.lockoutWait(failure, reaction));
      this.loginNotBefore = until;
      const action = code === TOO_MANY_TOKENS ? USER_ACTION.tooManyTokens(until) : USER_ACTION.lockout(code, describeApiStatus(code), until);
      this.log.error({ code, retryAt: new Date(until).toISOString() }, `meross account locked out: ${describeApiStatus(code)}; sending nothing until then`);
      this.session.set('locked-out', until, action);
      this.retryAfter(until - Date.now());
      return;
    }
    let delay = this.loginNotBefore - Date.now();
    if (delay <= 0) {
      this.apiFailures += 1;
      delay = backoffDelay(this.backoff.retryBackoffMs, this.apiFailures, this.backoff.maxBackoffMs);
    }
    this.log.warn({ code: code ?? failure.kind, retryInMs: delay }, `meross session not up: ${this.redactor.redact(failure.message)}`);
    this.session.set('backing-off', Date.now() + delay);
    this.retryAfter(delay);
  }

  private retryAfter(delay: number): void {
    this.retryTimer = setTimeout(() => void this.beginAttempt(), delay);
    this.retryTimer.unref();
  }

  private fetchDevices(): Promise<MerossDeviceDefinition[]> {
    this.fetching ??= callLibrary((done) => this.lib.getDevices(done), this.requestTimeoutMs * 2, 'the device list')
      .then(() => this.takeList())
      .finally(() => {
        this.fetching = null;
      });
    return this.fetching;
  }

  /** The list the transport captured during the library's getDevices; device objects are reconciled with it. */
  private takeList(): MerossDeviceDefinition[] {
    const list = this.capturedList;
    this.capturedList = null;
    if (!list) throw new CloudCallError('malformed', null, `${DEVICE_LIST_PATH}: no device list received`);
    // Stopped while the list was on its way: the library has just opened broker connections again.
    if (this.stopped) this.devices.stop();
    this.devices.reconcile(list);
    this.lastList = list;
    return list;
  }

  private async dropToken(): Promise<void> {
    Object.assign(this.lib, { token: null, authenticated: false });
    await this.tokens.clear().catch((err: unknown) => this.log.warn({ error: this.redactor.describe(err) }, 'could not delete the token file'));
  }

  private async saveToken(): Promise<void> {
    const { token, key, userId, userEmail, httpDomain, mqttDomain } = this.lib;
    if (!token || !key || !userId) return;
    try {
      await this.tokens.save({ token, key, userId: String(userId), userEmail, domain: httpDomain, mqttDomain, mfa: this.mfaAccount });
    } catch (err) {
      this.log.warn({ error: this.redactor.describe(err) }, 'could not save the session token; the next start logs in again');
    }
  }

  private assertSessionUp(): void {
    if (this.session.current !== 'connected' || this.stopped) throw this.unavailable();
  }

  private unavailable(): AppError {
    const { state, lastError, action } = this.session.snapshot();
    const reason = lastError ? `: ${lastError.message}` : '';
    if (state === 'failed' || state === 'needs-mfa') {
      const what = state === 'failed' ? 'The Meross login was refused' : 'The Meross session needs an MFA code';
      return new AppError('CLOUD_UNAVAILABLE', `${what}${reason}`, { solution: action ?? 'See /health' });
    }
    const messages = {
      'backing-off': `The Meross cloud session is backing off${reason}`,
      'locked-out': `The Meross account is locked out${reason}`,
    } as Record<string, string>;
    return new AppError('CLOUD_UNAVAILABLE', messages[state] ?? 'The Meross cloud session is connecting', {
      retryAfterSeconds: this.session.retryAfterSeconds(this.requestTimeoutMs),
      ...(action ? { solution: action } : {}),
    });
  }

  private toAppError(err: unknown): AppError {
    if (err instanceof CloudCallError) this.session.recordError(err.apiStatus ?? err.kind, this.redactor.redact(err.message));
    return toAppError(err, this.redactor, Math.ceil(this.backoff.retryBackoffMs / 1000));
  }

  private emit(event: CloudEvent): void {
    if (this.stopped && event.type !== 'session') return;
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (err) {
        this.log.error({ error: this.redactor.describe(err) }, 'cloud event listener failed');
      }
    }
  }
}

function definedOnly(options: Partial<BackoffOptions>): Partial<BackoffOptions> {
  return Object.fromEntries(
    (['loginBackoffMs', 'retryBackoffMs', 'maxBackoffMs', 'tooManyTokensWaitMs', 'lockoutWaitMs'] as const)
      .filter((k) => options[k] !== undefined)
      .map((k) => [k, options[k]]),
  );
}
