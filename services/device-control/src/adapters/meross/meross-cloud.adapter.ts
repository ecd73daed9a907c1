import { dirname, join } from 'node:path';
import { AppError, SingleFlight, type Clock, type Logger } from '@homeops/common';
import type { CloudDevice, CloudEvent, CloudStatus, DeviceCloud, FamilyClouds } from '../../domain/device-cloud.js';
import type { AdapterFamily } from '../../families/adapter-family.js';
import { ADAPTER_FAMILIES } from '../../families/adapters.js';
import { DEFAULT_BROKER_WAITS, type BrokerRecoveryOptions } from './meross-brokers.js';
import { CloudCallError, isTokenRejected, toAppError } from './meross-codes.js';
import { DeviceStore, type StoredList } from './meross-device-store.js';
import { MerossDevices } from './meross-devices.js';
import { MerossLanHttp } from './meross-lan-http.js';
import { LanLinks } from './meross-lan-links.js';
import { MerossHttp } from './meross-http.js';
import { createLibraryCloud, type LibraryCloud, type MerossDeviceDefinition } from './meross-library.js';
import { SecretRedactor } from './meross-secrets.js';
import { DEFAULT_BACKOFF, RetryTimer, type BackoffOptions } from './meross-backoff.js';
import { initialSession, next } from './meross-session.machine.js';
import { cloudStatusOf, type SessionEffect, type SessionEvent, type SessionFailure, type SessionState } from './meross-session.state.js';
import { TokenStore } from './meross-token.store.js';
import { callLibrary, DEVICE_LIST_PATH, installTransport, type Transport } from './meross-transport.js';

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
  /** Time and timers of the session, the broker recovery and the API call log (tests pass a ManualClock). */
  clock: Clock;
  logger: Logger;
  /** Local control; omitted: off (the cloud only). Given: on unless `enabled: false`, 3 s per call, port 80. */
  lan?: Partial<LanOptions> | undefined;
  /** The device families (their Meross codecs); default: every registered family. */
  families?: readonly AdapterFamily[] | undefined;
}

/** How devices are reached on the LAN. */
export interface LanOptions {
  /** false: every message goes through the cloud (MEROSS_LAN=off). */
  enabled: boolean;
  /** Addresses pinned by configuration (`host` or `host:port`), by uuid; they win over what devices tell. */
  addresses: ReadonlyMap<string, string>;
  /** Deadline of one LAN call. */
  timeoutMs: number;
  /** The port of a learnt address that names none (real devices: 80). */
  port: number;
}

const DEFAULT_LAN: LanOptions = { enabled: true, addresses: new Map(), timeoutMs: 3_000, port: 80 };

/** The stored device list lives beside the token file. */
export function deviceListFileOf(tokenFile: string): string {
  return join(dirname(tokenFile), 'meross-devices.json');
}

/**
 * The Meross cloud through meross-cloud 3.1: its login, device objects, MQTT and message signing, with the
 * library's HTTP transport replaced by MerossHttp, because that transport logs secrets, crashes on a region
 * redirect without data, reports a failed device list as an empty one and has no timeout of ours.
 * The session's life cycle is one state value moved by `next` (meross-session.machine.ts); this class runs the
 * effects each transition asks for and turns their results into the next events. The device families' reads and
 * commands are their codecs' ports (src/families/<family>/adapters), joined onto this object.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- the families' ports are assigned in the constructor
export interface MerossCloud extends FamilyClouds {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class MerossCloud implements DeviceCloud {
  readonly backend = 'meross' as const;
  readonly lanControl: boolean;
  private readonly store: DeviceStore;
  /** The list kept from the last run, once read at start (null: none). */
  private stored: Promise<StoredList | null> = Promise.resolve(null);
  /** The account key kept with that list: signs LAN messages until a session brings the key. */
  private storedKey: string | null = null;
  private readonly lib: LibraryCloud;
  private readonly http: MerossHttp;
  private readonly transport: Transport;
  private readonly tokens: TokenStore;
  private readonly redactor: SecretRedactor;
  private readonly devices: MerossDevices;
  private readonly listeners = new Set<(event: CloudEvent) => void>();
  private readonly waits: BackoffOptions;
  private readonly requestTimeoutMs: number;
  private readonly clock: Clock;
  private readonly log: Logger;
  /** The attempt to bring the session up, from the event that began it until it settles; callers join it. */
  private readonly attempt = new SingleFlight<void>();
  private readonly fetching = new SingleFlight<MerossDeviceDefinition[]>();
  private readonly retryTimer: RetryTimer;
  /** Where the session stands; it changes only through `next`. */
  private session: SessionState;

  constructor(options: MerossCloudOptions) {
    const apiUrl = new URL(options.apiUrl ?? 'https://iotx.meross.com');
    if (apiUrl.protocol !== 'https:') throw new Error('The Meross API URL must use https://');
    this.log = options.logger;
    this.clock = options.clock;
    this.waits = { ...DEFAULT_BACKOFF, ...definedOnly(options) };
    this.requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
    const commandTimeoutMs = options.commandTimeoutMs ?? 5_000;
    this.session = initialSession(options.mfaCode);
    this.retryTimer = new RetryTimer(this.clock);
    this.lib = createLibraryCloud({ email: options.email, password: options.password, timeout: commandTimeoutMs });
    this.lib.httpDomain = apiUrl.host;
    this.tokens = new TokenStore(options.tokenFile, options.email, apiUrl.origin, this.clock);
    this.store = new DeviceStore(options.tokenFile && deviceListFileOf(options.tokenFile), this.tokens.account, this.clock);
    this.redactor = new SecretRedactor(options.password, () => this.lib);
    const lan = options.lan ? { ...DEFAULT_LAN, ...definedLan(options.lan) } : { ...DEFAULT_LAN, enabled: false };
    this.lanControl = lan.enabled;
    this.http = new MerossHttp(
      this.requestTimeoutMs,
      (call) => {
        this.log.debug(call, 'meross api call');
        // A connection that failed never reached the cloud; anything answered (or left unanswered) did.
        if (call.outcome !== 'network') this.emit({ type: 'sent', via: 'api', what: call.path });
      },
      this.clock,
    );
    this.devices = new MerossDevices({
      lib: this.lib,
      commandTimeoutMs,
      recovery: { ...DEFAULT_BROKER_WAITS, ...options.brokerRecovery },
      clock: this.clock,
      redactor: this.redactor,
      log: this.log,
      emit: (event) => this.emit(event),
      assertSessionUp: () => this.assertSessionUp(),
      recordError: (code, message) => void this.dispatch({ type: 'errorSeen', code, message }),
      lan: {
        links: new LanLinks(lan.enabled, lan.addresses, this.clock),
        http: new MerossLanHttp(lan.timeoutMs, this.clock, (call) => this.log.debug(call, 'meross lan call')),
        key: () => this.lib.key ?? this.storedKey,
        port: lan.port,
      },
      onLearned: () => this.persist(),
      families: (options.families ?? ADAPTER_FAMILIES).flatMap((f) => (f.meross ? [f.meross] : [])),
    });
    Object.assign(this, this.devices.ports);
    this.transport = installTransport(this.lib, this.http, {
      log: this.log,
      redactor: this.redactor,
      onMoved: () => {
        if (this.lib.token) void this.saveToken(this.session.memory.mfa);
      },
    });
    this.lib.on('error', (error: unknown, uuid?: string) => this.devices.onLibraryError(error, uuid));
  }

  /** Resolves at once: the stored list is read, the token checked, loaded and used (or a login made) in the background. */
  async start(): Promise<void> {
    if (this.session.kind !== 'idle') return;
    this.stored = this.store.load().then((list) => {
      if (list) {
        this.storedKey = list.key;
        this.devices.restore(list.devices);
      }
      return list;
    });
    void this.begin({ type: 'start' });
  }

  /** The list kept from the last run, described with what the LAN knows now (a start while the cloud is away). */
  async storedDevices(): Promise<CloudDevice[] | null> {
    const list = await this.stored;
    return list ? this.devices.describe(list.devices.map((d) => d.def)) : null;
  }

  refresh(uuid: string, lanOnly: boolean): Promise<void> {
    return this.devices.refresh(uuid, lanOnly);
  }

  async stop(): Promise<void> {
    await this.dispatch({ type: 'stop' });
    // A save still writing would outlive the service (and race whoever removes its folder).
    await this.store.idle();
  }

  status(): CloudStatus {
    return cloudStatusOf(this.session, this.tokens.status());
  }

  onEvent(listener: (event: CloudEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async listDevices(): Promise<CloudDevice[]> {
    if (this.session.kind === 'connecting') return this.afterAttempt();
    this.assertSessionUp();
    let list: MerossDeviceDefinition[];
    try {
      list = await this.fetchDevices();
    } catch (err) {
      // Concurrent callers share one failed fetch: the first one's event moves the session, the others join.
      if (this.session.kind === 'connected') await this.begin({ type: 'listFailed', failure: this.failureOf(err) });
      if (isTokenRejected(err)) return this.afterAttempt();
      if (this.session.kind !== 'connected') throw this.unavailable();
      throw toAppError(err, this.redactor, Math.ceil(this.waits.retryBackoffMs / 1000));
    }
    await this.dispatch({ type: 'listFetched', list });
    return this.devices.describe(list);
  }

  async submitMfaCode(code: string): Promise<void> {
    if (this.session.kind !== 'needsMfa' || this.attempt.current) {
      throw new AppError('CLOUD_LOGIN_NOT_NEEDED', `The Meross session is ${this.status().state}; it does not wait for an MFA code`);
    }
    await this.begin({ type: 'mfaCodeSubmitted', code, hasToken: this.lib.token !== null });
    const session = this.session as SessionState;
    if (session.kind === 'connected') return;
    if (session.kind === 'needsMfa' && session.code === 1032) {
      throw new AppError('MFA_CODE_REJECTED', 'The Meross cloud rejected the MFA code (error 1032: wrong or expired code)', {
        details: [{ path: 'mfaCode', message: 'wrong or expired code' }],
      });
    }
    throw this.unavailable();
  }

  abilitiesKnown(uuid: string): boolean {
    return this.devices.abilitiesKnown(uuid);
  }

  readChannels(uuid: string): Promise<Array<{ channel: number; on: boolean }>> {
    return this.devices.ports.readChannels(uuid);
  }

  setChannel(uuid: string, channel: number, on: boolean): Promise<void> {
    return this.devices.ports.setChannel(uuid, channel, on);
  }

  /** Waits for the attempt in flight, then answers from the list it brought. */
  private async afterAttempt(): Promise<CloudDevice[]> {
    await this.attempt.current;
    if (this.session.kind !== 'connected') throw this.unavailable();
    return this.devices.describe([...this.session.list]);
  }

  /** An event that may begin an attempt: callers that need the session up wait for all it leads to. */
  private begin(event: SessionEvent): Promise<void> {
    return this.attempt.run(() => this.dispatch(event));
  }

  /** Moves the session by one event and runs the effects of the transition in order (their results included). */
  private async dispatch(event: SessionEvent): Promise<void> {
    const { state, effects } = next(this.session, event, this.clock.now(), this.waits);
    this.session = state;
    for (const effect of effects) await this.perform(effect);
  }

  private async perform(effect: SessionEffect): Promise<void> {
    switch (effect.type) {
      case 'log':
        this.log[effect.level](effect.fields ?? {}, effect.message);
        return;
      case 'announce':
        this.emit({ type: 'session', status: this.status() });
        return;
      case 'armRetry':
        this.retryTimer.arm(effect.at, () => void this.begin({ type: 'retryDue', hasToken: this.lib.token !== null }));
        return;
      case 'cancelRetry':
        this.retryTimer.cancel();
        return;
      case 'closeConnections':
        this.devices.stop();
        return;
      case 'loadToken':
        return this.dispatch(await this.loadToken());
      case 'fetchList':
        return this.dispatch(
          await this.fetchDevices().then(
            (list): SessionEvent => ({ type: 'listFetched', list }),
            (err: unknown): SessionEvent => ({ type: 'listFailed', failure: this.failureOf(err) }),
          ),
        );
      case 'login':
        return this.dispatch(await this.login(effect.mfaCode));
      case 'dropToken':
        await this.dropToken();
        return this.dispatch({ type: 'tokenDropped' });
      case 'saveToken':
        await this.saveToken(effect.mfa);
        return this.dispatch({ type: 'tokenSaved' });
    }
  }

  /** Checks the token file can be written, then gives the library the saved session of this account, if any. */
  private async loadToken(): Promise<SessionEvent> {
    const { writable, file, error } = await this.tokens.check();
    if (writable === false) this.log.warn({ file, error }, 'the session token cannot be saved; every restart will log in again');
    const saved = await this.tokens.load();
    if (!saved) return { type: 'tokenLoaded', found: false, mfa: false };
    Object.assign(this.lib, {
      token: saved.token,
      key: saved.key,
      userId: saved.userId,
      userEmail: saved.userEmail,
      httpDomain: saved.domain,
      authenticated: true,
    });
    if (saved.mqttDomain) this.lib.mqttDomain = saved.mqttDomain;
    return { type: 'tokenLoaded', found: true, mfa: saved.mfa === true };
  }

  private async login(mfaCode: string | undefined): Promise<SessionEvent> {
    const before = this.lib.token;
    try {
      if (mfaCode) this.lib.options.mfaCode = mfaCode;
      // The library signs in, then fetches the device list with the new token.
      await callLibrary(this.clock, (done) => this.lib.login(done), this.requestTimeoutMs * 3, 'login');
      return { type: 'loginSucceeded', list: this.takeList() };
    } catch (err) {
      return { type: 'loginFailed', failure: this.failureOf(err), tokenIssued: this.lib.token !== null && this.lib.token !== before };
    } finally {
      delete this.lib.options.mfaCode;
    }
  }

  private fetchDevices(): Promise<MerossDeviceDefinition[]> {
    return this.fetching.run(() =>
      callLibrary(this.clock, (done) => this.lib.getDevices(done), this.requestTimeoutMs * 2, 'the device list').then(() => this.takeList()),
    );
  }

  /** The list the transport captured during the library's getDevices; device objects are reconciled with it. */
  private takeList(): MerossDeviceDefinition[] {
    const list = this.transport.takeDeviceList();
    if (!list) throw new CloudCallError('malformed', null, `${DEVICE_LIST_PATH}: no device list received`);
    this.devices.reconcile(list);
    this.persist();
    return list;
  }

  /** Keeps the device list (and what the LAN learnt) for a start without the cloud; needs the key that signs LAN messages. */
  private persist(): void {
    void this.store.save(
      () => {
        const key = this.lib.key ?? this.storedKey;
        return key ? { key, devices: this.devices.snapshot() } : null;
      },
      (err) => this.log.warn({ error: this.redactor.describe(err) }, 'could not keep the device list for the next start'),
    );
  }

  private failureOf(err: unknown): SessionFailure {
    if (err instanceof CloudCallError) return { kind: err.kind, code: err.apiStatus, message: this.redactor.redact(err.message) };
    return { kind: 'library', code: null, message: this.redactor.describe(err) };
  }

  private async dropToken(): Promise<void> {
    Object.assign(this.lib, { token: null, authenticated: false });
    await this.tokens.clear().catch((err: unknown) => this.log.warn({ error: this.redactor.describe(err) }, 'could not delete the token file'));
  }

  private async saveToken(mfa: boolean): Promise<void> {
    const { token, key, userId, userEmail, httpDomain, mqttDomain } = this.lib;
    if (!token || !key || !userId) return;
    try {
      await this.tokens.save({ token, key, userId: String(userId), userEmail, domain: httpDomain, mqttDomain, mfa });
    } catch (err) {
      this.log.warn({ error: this.redactor.describe(err) }, 'could not save the session token; the next start logs in again');
    }
  }

  private assertSessionUp(): void {
    if (this.session.kind !== 'connected') throw this.unavailable();
  }

  private unavailable(): AppError {
    const { state, lastError, action, retryAt } = this.status();
    const reason = lastError ? `: ${lastError.message}` : '';
    if (state === 'failed' || state === 'needs-mfa') {
      const what = state === 'failed' ? 'The Meross login was refused' : 'The Meross session needs an MFA code';
      return new AppError('CLOUD_UNAVAILABLE', `${what}${reason}`, { solution: action ?? 'See /health' });
    }
    const messages = {
      'backing-off': `The Meross cloud session is backing off${reason}`,
      'locked-out': `The Meross account is locked out${reason}`,
    } as Record<string, string>;
    // Seconds until the next attempt, for Retry-After.
    const waitMs = retryAt === null ? this.requestTimeoutMs : Date.parse(retryAt) - this.clock.now();
    return new AppError('CLOUD_UNAVAILABLE', messages[state] ?? 'The Meross cloud session is connecting', {
      retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)),
      ...(action ? { solution: action } : {}),
    });
  }

  private emit(event: CloudEvent): void {
    if (this.session.kind === 'stopped' && event.type !== 'session') return;
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (err) {
        this.log.error({ error: this.redactor.describe(err) }, 'cloud event listener failed');
      }
    }
  }
}

function definedLan(lan: Partial<LanOptions> | undefined): Partial<LanOptions> {
  return Object.fromEntries(Object.entries(lan ?? {}).filter(([, v]) => v !== undefined)) as Partial<LanOptions>;
}

function definedOnly(options: Partial<BackoffOptions>): Partial<BackoffOptions> {
  return Object.fromEntries(
    (['loginBackoffMs', 'retryBackoffMs', 'maxBackoffMs', 'tooManyTokensWaitMs', 'lockoutWaitMs'] as const)
      .filter((k) => options[k] !== undefined)
      .map((k) => [k, options[k]]),
  );
}
