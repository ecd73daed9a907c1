import { AppError, type Logger } from '@homeops/common';
import type { CloudDevice, CloudEvent, CloudStatus, DeviceCloud } from '../../domain/device-cloud.js';
import { CloudCallError, CREDENTIALS_REJECTED, isTokenRejected, TOO_MANY_TOKENS, toAppError } from './meross-codes.js';
import { MerossDevices } from './meross-devices.js';
import { MerossHttp } from './meross-http.js';
import { createLibraryCloud, type LibraryCloud, type MerossDeviceDefinition } from './meross-library.js';
import { SecretRedactor } from './meross-secrets.js';
import { backoffDelay, DEFAULT_BACKOFF, SessionStatus, type BackoffOptions } from './meross-session.js';
import { TokenStore } from './meross-token.store.js';
import { callLibrary, DEVICE_LIST_PATH, installTransport } from './meross-transport.js';

/** A login is due but still inside its backoff window; nothing was sent. */
class LoginPostponed extends Error {}

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

  constructor(private readonly options: MerossCloudOptions) {
    const apiUrl = new URL(options.apiUrl ?? 'https://iotx.meross.com');
    if (apiUrl.protocol !== 'https:') throw new Error('The Meross API URL must use https://');
    this.log = options.logger;
    this.backoff = { ...DEFAULT_BACKOFF, ...definedOnly(options) };
    this.requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
    const commandTimeoutMs = options.commandTimeoutMs ?? 5_000;
    this.lib = createLibraryCloud({
      email: options.email,
      password: options.password,
      ...(options.mfaCode ? { mfaCode: options.mfaCode } : {}),
      timeout: commandTimeoutMs,
    });
    this.lib.httpDomain = apiUrl.host;
    this.tokens = new TokenStore(options.tokenFile, options.email, apiUrl.origin);
    this.redactor = new SecretRedactor(options.password, () => this.lib);
    this.session = new SessionStatus((status) => this.emit({ type: 'session', status }), () => this.tokens.status());
    this.http = new MerossHttp(this.requestTimeoutMs, (call) => this.log.debug(call, 'meross api call'));
    this.devices = new MerossDevices({
      lib: this.lib,
      commandTimeoutMs,
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
      if (!isTokenRejected(err)) throw this.toAppError(err);
      this.log.warn({ code: (err as CloudCallError).apiStatus }, 'the cloud rejected the session token; logging in again');
      await this.dropToken();
      await this.beginAttempt();
      return this.connectedList();
    }
  }

  readChannels(uuid: string): Promise<Array<{ channel: number; on: boolean }>> {
    return this.devices.readChannels(uuid);
  }

  setChannel(uuid: string, channel: number, on: boolean): Promise<void> {
    return this.devices.setChannel(uuid, channel, on);
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
    const before = this.lib.token;
    this.log.info('logging in to the meross cloud');
    try {
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
        const wait =
          err instanceof CloudCallError && err.apiStatus === TOO_MANY_TOKENS
            ? this.backoff.tooManyTokensWaitMs
            : backoffDelay(this.backoff.loginBackoffMs, this.loginFailures, this.backoff.maxBackoffMs);
        this.loginNotBefore = Date.now() + wait;
      }
      throw err;
    } finally {
      if (this.lib.token !== null && this.lib.token !== before) await this.saveToken();
    }
  }

  private scheduleRetry(err: unknown): void {
    const failure = err instanceof CloudCallError ? err : new CloudCallError('library', null, this.redactor.describe(err));
    if (!(err instanceof LoginPostponed)) {
      this.session.recordError(failure.apiStatus ?? failure.kind, this.redactor.redact(failure.message));
    }
    if (failure.apiStatus !== null && CREDENTIALS_REJECTED.has(failure.apiStatus)) {
      this.log.error({ code: failure.apiStatus }, 'meross login refused; fix the credentials (or MFA code) and restart');
      this.session.set('failed');
      return;
    }
    let delay = this.loginNotBefore - Date.now();
    if (delay <= 0) {
      this.apiFailures += 1;
      delay = backoffDelay(this.backoff.retryBackoffMs, this.apiFailures, this.backoff.maxBackoffMs);
    }
    const level = failure.apiStatus === TOO_MANY_TOKENS ? 'error' : 'warn';
    this.log[level]({ code: failure.apiStatus ?? failure.kind, retryInMs: delay }, `meross session not up: ${this.redactor.redact(failure.message)}`);
    this.session.set('backing-off', Date.now() + delay);
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
      await this.tokens.save({ token, key, userId: String(userId), userEmail, domain: httpDomain, mqttDomain });
    } catch (err) {
      this.log.warn({ error: this.redactor.describe(err) }, 'could not save the session token; the next start logs in again');
    }
  }

  private assertSessionUp(): void {
    if (this.session.current !== 'connected' || this.stopped) throw this.unavailable();
  }

  private unavailable(): AppError {
    const { state, lastError } = this.session.snapshot();
    const reason = lastError ? `: ${lastError.message}` : '';
    if (state === 'failed') {
      return new AppError('CLOUD_UNAVAILABLE', `The Meross login was refused${reason}`, {
        solution: 'Fix CLOUD_EMAIL, CLOUD_PASSWORD or CLOUD_MFA_CODE and restart the service',
      });
    }
    const message = state === 'backing-off' ? `The Meross cloud session is backing off${reason}` : 'The Meross cloud session is connecting';
    return new AppError('CLOUD_UNAVAILABLE', message, { retryAfterSeconds: this.session.retryAfterSeconds(this.requestTimeoutMs) });
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
    (['loginBackoffMs', 'retryBackoffMs', 'maxBackoffMs', 'tooManyTokensWaitMs'] as const)
      .filter((k) => options[k] !== undefined)
      .map((k) => [k, options[k]]),
  );
}
