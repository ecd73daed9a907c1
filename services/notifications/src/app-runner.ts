import { createLogger, type Logger, type LoggerOptions } from '@homeops/common';
import { buildAdapters } from './build-adapters.js';
import { parseConfig } from './config.js';
import { startService, type RunningService } from './service-runner.js';
import { SERVICE_NAME } from './version.js';

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
  /** Pushover credentials; omitted: PROVIDER_* / PUSHOVER_* environment variables; `false`: delivery off. */
  provider?: { userKey: string; apiToken: string; apiUrl?: string; timeoutMs?: number } | false;
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
    const { PROVIDER_USER_KEY, PROVIDER_API_TOKEN, PUSHOVER_USER_KEY, PUSHOVER_API_TOKEN, PROVIDER_API_URL } = process.env;
    return { PROVIDER_USER_KEY, PROVIDER_API_TOKEN, PUSHOVER_USER_KEY, PUSHOVER_API_TOKEN, PROVIDER_API_URL };
  }
  return {
    PROVIDER_USER_KEY: provider.userKey,
    PROVIDER_API_TOKEN: provider.apiToken,
    PROVIDER_API_URL: provider.apiUrl,
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
    this.running = await startService(config, logger, buildAdapters(config, logger), { handleSignals: false });
  }
}
