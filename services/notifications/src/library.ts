import { createLogger, InMemoryTokenStore, systemClock, TokenRegistry, type Clock, type Logger, type LoggerOptions } from '@homeops/common';
import type { Express } from 'express';
import { NOTIFICATION_SCOPES, type AppConfig } from './app.js';
import { buildDomain, createStreamHub, type AppDeps } from './build-domain.js';
import { createAppOn, startNotifications, type RunningService } from './compose.js';
import { parseConfig, type Config } from './config.js';
import type { AttachmentStore } from './domain/attachment-store.js';
import type { EventRelay } from './domain/notification-events.js';
import type { NotificationRepository } from './domain/notification-repository.js';
import type { PlanStore } from './domain/plans/plan.js';
import type { PushProvider } from './domain/push-provider.js';
import { SERVICE_NAME } from './version.js';

/** The real (or embedding app's) implementations of the domain interfaces. */
export interface ServiceAdapters {
  repository: NotificationRepository;
  attachments: AttachmentStore;
  provider: PushProvider;
  /** Shares live events with the other instances of a shared store. */
  relay?: EventRelay;
  /** Time and timers of the domain, its jobs and the event streams; default the system clock. */
  clock?: Clock;
  /** Scheduled sends and heartbeats; default in memory (lost on restart). */
  plans?: PlanStore;
}

/**
 * The service on adapters of your own (the library's `startService`): opens the history and the tokens, starts
 * delivery and retention, and listens; closes all it opened again if listening fails.
 */
export function startService(config: Config, logger: Logger, adapters: ServiceAdapters, options: { handleSignals: boolean }): Promise<RunningService> {
  return startNotifications(config, { logger, ...adapters }, options);
}

/**
 * The Express app on adapters of your own (the library's `createApp`): the domain built once on them, in-memory tokens
 * unless given; never listens, starts nothing.
 */
export function createAppFromAdapters(deps: AppDeps, config: AppConfig): Express {
  const clock = deps.clock ?? systemClock;
  const domain = buildDomain(deps, config);
  const tokens = deps.tokens ?? new TokenRegistry({ store: new InMemoryTokenStore(), clock, scopes: NOTIFICATION_SCOPES });
  const hub = deps.hub ?? createStreamHub(config, clock);
  return createAppOn(domain, { logger: deps.logger, hub, tokens, ...(deps.mqttStatus ? { mqttStatus: deps.mqttStatus } : {}) }, config);
}

/** Options of the embeddable service; only `port` and `storagePath` are needed. */
export interface AppOptions {
  /** 0 picks a free port; read it from `app.port` after start. */
  port: number;
  /** The YAML history file; attachments are kept in a folder beside it (also with `storageUrl`). */
  storagePath: string;
  /** `postgres://…`: the history in PostgreSQL instead of the YAML file, shareable by several instances. */
  storageUrl?: string;
  /**
   * Interface to bind; default 127.0.0.1 without `apiKey`, 0.0.0.0 with one. Another address without `apiKey` gets a
   * generated key kept in `api-key` beside the history (see the service's README).
   */
  host?: string;
  /**
   * Pushover credentials (`encryptionKey`: the user's end-to-end key, 64 hex characters; `appName`: the title of an
   * encrypted message without one); omitted: PROVIDER_* / PUSHOVER_* environment variables; `false`: delivery off.
   */
  provider?: { userKey: string; apiToken: string; apiUrl?: string; timeoutMs?: number; encryptionKey?: string; appName?: string } | false;
  /** Require this key (32+ characters, no whitespace) on every route but /health and /docs. */
  apiKey?: string;
  /** A pino logger of the host application; default: JSON lines on stdout at `logLevel`. */
  logger?: Logger;
  /** Default `warn`, so an embedding app's output stays quiet. */
  logLevel?: LoggerOptions['level'];
}

function providerEnv(provider: AppOptions['provider']): Record<string, string | undefined> {
  if (provider === false) return {};
  if (provider === undefined) {
    const { PROVIDER_USER_KEY, PROVIDER_API_TOKEN, PUSHOVER_USER_KEY, PUSHOVER_API_TOKEN, PROVIDER_API_URL, PROVIDER_ENCRYPTION_KEY, PROVIDER_APP_NAME } =
      process.env;
    return { PROVIDER_USER_KEY, PROVIDER_API_TOKEN, PUSHOVER_USER_KEY, PUSHOVER_API_TOKEN, PROVIDER_API_URL, PROVIDER_ENCRYPTION_KEY, PROVIDER_APP_NAME };
  }
  return {
    PROVIDER_USER_KEY: provider.userKey,
    PROVIDER_API_TOKEN: provider.apiToken,
    PROVIDER_API_URL: provider.apiUrl,
    PROVIDER_ENCRYPTION_KEY: provider.encryptionKey,
    PROVIDER_APP_NAME: provider.appName,
    PROVIDER_TIMEOUT_MS: provider.timeoutMs === undefined ? undefined : String(provider.timeoutMs),
  };
}

/**
 * The notification service as a library: `new App(9095, "./notifications.yaml")` or `new App({ port, storagePath })`,
 * then `await app.start()` (resolves once listening) and `await app.stop()` (closes the server, streams and the file).
 */
export class App {
  private readonly options: AppOptions;
  private running: RunningService | undefined;
  private starting: Promise<void> | undefined;

  constructor(port: number, storagePath: string);
  constructor(options: AppOptions);
  constructor(portOrOptions: number | AppOptions, storagePath?: string) {
    this.options = typeof portOrOptions === 'number' ? { port: portOrOptions, storagePath: storagePath ?? '' } : portOrOptions;
    if (!this.options.storagePath) throw new TypeError('App needs a storage path, e.g. new App(9095, "./notifications.yaml")');
  }

  /** The bound port once started (the real one when 0 was asked), else the configured one. */
  get port(): number {
    return this.running?.port ?? this.options.port;
  }

  /** Opens the history (refusing a corrupt or locked file), starts delivery and listens. */
  start(): Promise<void> {
    this.starting ??= this.launch().catch((err: unknown) => {
      this.starting = undefined;
      throw err;
    });
    return this.starting;
  }

  /** Stops gracefully; safe to call twice or before start. */
  async stop(): Promise<void> {
    await this.starting?.catch(() => undefined);
    const running = this.running;
    this.running = undefined;
    this.starting = undefined;
    await running?.stop();
  }

  private async launch(): Promise<void> {
    const { options } = this;
    const config = parseConfig({
      PORT: String(options.port),
      HOST: options.host,
      STORAGE_PATH: options.storagePath,
      STORAGE_URL: options.storageUrl,
      API_KEY: options.apiKey,
      ...providerEnv(options.provider),
    });
    const logger = options.logger ?? createLogger({ service: SERVICE_NAME, level: options.logLevel ?? 'warn' });
    this.running = await startNotifications(config, { logger }, { handleSignals: false });
  }
}
