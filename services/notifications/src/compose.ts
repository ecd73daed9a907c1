import { once } from 'node:events';
import { dirname, join } from 'node:path';
import {
  AppMetrics,
  openServiceTokens,
  Resources,
  serve,
  systemClock,
  withResolvedAccess,
  type Clock,
  type Composed,
  type EventStreamHub,
  type Logger,
  type TokenRegistry,
} from '@homeops/common';
import { MQTT_OFF, type MqttStatus } from '@homeops/common/mqtt';
import type { Express } from 'express';
import { MustacheHookTemplates } from './adapters/hooks/hook-template.js';
import { createPushProvider } from './adapters/pushover/create-push-provider.js';
import { toEncryptionKey } from './adapters/pushover/field-cipher.js';
import type { FallbackSenders } from './adapters/fallback/fallback-senders.js';
import type { FallbackSpec } from './adapters/fallback/fallback-target.js';
import { loadRecipientMap, type RecipientMap } from './adapters/pushover/recipient-map.js';
import { FileAttachmentStore } from './adapters/storage/file-attachment.store.js';
import { InMemoryPlanStore } from './adapters/storage/in-memory-plan-store.js';
import { nodeStorageFs } from './adapters/storage/storage-fs.js';
import { createApp, NOTIFICATION_SCOPES, type AppConfig } from './app.js';
import { buildDomain, createStreamHub, type Domain } from './build-domain.js';
import { attachmentDirOf, buildStorage, type Storage } from './build-storage.js';
import type { Config } from './config.js';
import type { AttachmentStore } from './domain/attachment-store.js';
import { sweepOrphanAttachments } from './domain/attachment-sweep.job.js';
import type { EventRelay } from './domain/notification-events.js';
import type { NotificationRepository } from './domain/notification-repository.js';
import type { PlanStore } from './domain/plans/plan.js';
import type { PushProvider } from './domain/push-provider.js';
import { RetentionJob } from './domain/retention.job.js';
import { SendRates } from './http/send-limits.js';
import { SERVICE_NAME } from './version.js';

/**
 * What a test or an embedding app puts in place of what the config would build. Given or built, each is opened and
 * closed by the composition.
 */
export interface NotificationOverrides {
  logger: Logger;
  /** Time and timers of the domain, its jobs and the event streams; default the system clock. */
  clock?: Clock;
  /** A history of your own: then the plans are kept in memory and no events are relayed, unless given too. */
  repository?: NotificationRepository;
  relay?: EventRelay;
  plans?: PlanStore;
  attachments?: AttachmentStore;
  provider?: PushProvider;
  /** Default: the scoped tokens of TOKENS_FILE (or beside the history). */
  tokens?: TokenRegistry;
}

/** The service put together and opened, not yet listening, its background work not yet started. */
export interface ComposedNotifications extends Composed<Config> {
  /** Built once: HTTP, webhooks, heartbeats and the MQTT bridge share it. */
  domain: Domain;
  hub: EventStreamHub;
  plans: PlanStore;
  /** Starts the work beside HTTP: the provider, resumed deliveries, emergencies, plans, retention, MQTT. */
  start(): Promise<void>;
}

/** A listening notification service. */
export interface RunningService {
  /** The port actually bound (useful with port 0). */
  port: number;
  /** Stops taking requests, ends live streams, lets attempts in progress finish, flushes and unlocks the history. */
  stop(): Promise<void>;
}

/** The app on a built domain with what only HTTP uses: the webhook templates, send rates and metrics. */
export function createAppOn(
  domain: Domain,
  parts: { logger: Logger; hub: EventStreamHub; tokens: TokenRegistry; mqttStatus?: () => MqttStatus },
  config: AppConfig,
): Express {
  return createApp(
    {
      ...parts,
      domain,
      templates: MustacheHookTemplates.load(config.HOOK_TEMPLATES_FILE),
      sendRates: new SendRates(domain.ctx.clock),
      metrics: config.METRICS === 'off' ? undefined : new AppMetrics(),
      mqttStatus: parts.mqttStatus ?? (() => MQTT_OFF),
    },
    config,
  );
}

/** The history, plans and relay given, else those of the config (PostgreSQL or the YAML file). */
function storageOf(config: Config, overrides: NotificationOverrides, clock: Clock): Storage {
  const built = overrides.repository ? undefined : buildStorage(config, overrides.logger, clock);
  const relay = overrides.relay ?? built?.relay;
  return {
    repository: overrides.repository ?? built!.repository,
    plans: overrides.plans ?? built?.plans ?? new InMemoryPlanStore(),
    ...(relay ? { relay } : {}),
  };
}

/** The recipients' fallback targets (ntfy, mail), or none when no recipient has one (then nodemailer is never loaded). */
async function fallbackOf(config: Config, recipients: RecipientMap, clock: Clock): Promise<FallbackSenders | undefined> {
  const targets = new Map<string, FallbackSpec[]>();
  for (const [name, target] of recipients.recipients) if (target.fallback?.length) targets.set(name, target.fallback);
  if (targets.size === 0) return undefined;
  const mail = config.SMTP_URL && config.SMTP_FROM ? { url: config.SMTP_URL, from: config.SMTP_FROM, timeoutMs: config.PROVIDER_TIMEOUT_MS } : undefined;
  const { FallbackSenders } = await import('./adapters/fallback/fallback-senders.js');
  return new FallbackSenders({ targets, mail, timeoutMs: config.PROVIDER_TIMEOUT_MS, clock });
}

/** Pushover with the configured keys and recipient map, or the disabled provider without keys. */
function providerOf(config: Config, recipients: RecipientMap, clock: Clock): PushProvider {
  return createPushProvider({
    userKey: config.PROVIDER_USER_KEY,
    apiToken: config.PROVIDER_API_TOKEN,
    apiUrl: config.PROVIDER_API_URL,
    timeoutMs: config.PROVIDER_TIMEOUT_MS,
    recipients,
    maxRejections: config.PROVIDER_MAX_REJECTIONS,
    emergencyRetrySeconds: config.EMERGENCY_RETRY_SECONDS,
    emergencyExpireSeconds: config.EMERGENCY_EXPIRE_SECONDS,
    encryptionKey: config.PROVIDER_ENCRYPTION_KEY === undefined ? undefined : toEncryptionKey(config.PROVIDER_ENCRYPTION_KEY),
    appName: config.PROVIDER_APP_NAME,
    clock,
  });
}

/**
 * The one place the notification service is put together: opens the tokens, the history and the plans, deletes
 * orphaned attachment files, builds the domain once and the app on it, registering each cleanup as its resource
 * opens. A step that fails closes what the steps before it opened.
 */
export async function composeNotifications(settings: Config, overrides: NotificationOverrides): Promise<ComposedNotifications> {
  const { logger } = overrides;
  const clock = overrides.clock ?? systemClock;
  const resources = new Resources();
  return resources.openAll(async () => {
    const config = await withResolvedAccess(settings, join(dirname(settings.STORAGE_PATH), 'api-key'), logger);
    const tokens =
      overrides.tokens ??
      (await openServiceTokens({
        file: config.TOKENS_FILE,
        dataDir: dirname(settings.STORAGE_PATH),
        service: SERVICE_NAME,
        scopes: NOTIFICATION_SCOPES,
        clock,
        logger,
      }));
    resources.add('tokens', () => tokens.close());
    const { repository, plans, relay } = storageOf(config, overrides, clock);
    await repository.open();
    resources.add('history', () => repository.close());
    await plans.open();
    resources.add('plans', () => plans.close());
    if (relay) resources.add('event relay', () => relay.stop());
    const recipients = loadRecipientMap({ file: config.RECIPIENTS_FILE, variable: config.RECIPIENTS, unmapped: config.UNMAPPED_RECIPIENTS });
    const provider = overrides.provider ?? providerOf(config, recipients, clock);
    resources.add('push provider', () => provider.stop?.());
    // Only beside Pushover: without a provider every notification is `skipped`, never delivered anywhere.
    const fallback = provider.enabled ? await fallbackOf(config, recipients, clock) : undefined;
    if (fallback) resources.add('fallback senders', () => fallback.stop());
    if (!provider.enabled) {
      logger.warn(
        'PUSH DELIVERY IS OFF: PROVIDER_USER_KEY and PROVIDER_API_TOKEN (or PUSHOVER_USER_KEY and PUSHOVER_API_TOKEN) ' +
          'are not set. Notifications are stored with delivery "skipped" and never reach a device.',
      );
    }
    const attachments =
      overrides.attachments ??
      new FileAttachmentStore(config.ATTACHMENTS_DIR ?? attachmentDirOf(config.STORAGE_PATH), nodeStorageFs, { maxBytes: config.ATTACHMENTS_MAX_BYTES });
    const hub = createStreamHub(config, clock);
    resources.add('event streams', () => hub.closeAll());
    const domain = buildDomain({ logger, repository, attachments, provider, clock, plans, ...(fallback ? { fallback } : {}) }, config);
    const { ctx, delivery, emergencies, planner } = domain;
    resources.add('delivery', () => delivery.stop());
    if (emergencies) resources.add('emergency watch', () => emergencies.stop());
    resources.add('planner', () => planner.stop());
    if (relay) await ctx.events.connect(relay);
    await sweepOrphanAttachments(ctx);
    const retention = new RetentionJob(
      ctx,
      { maxAgeDays: config.RETENTION_MAX_AGE_DAYS, maxPerRecipient: config.RETENTION_MAX_PER_RECIPIENT },
      config.RETENTION_INTERVAL_MS,
    );
    resources.add('retention', () => retention.stop());
    // Loaded only with MQTT_URL: a service without it never loads the bridge or the mqtt package.
    const mqtt = config.MQTT_URL === undefined ? undefined : (await import('./build-mqtt.js')).buildMqtt(config, domain, logger);
    if (mqtt) resources.add('mqtt', () => mqtt.stop());
    const app = createAppOn(domain, { logger, hub, tokens, ...(mqtt ? { mqttStatus: mqtt.status } : {}) }, config);
    const start = async () => {
      provider.start?.();
      const later = (what: string) => (err: unknown) => logger.error({ err }, `${what} failed; the service goes on`);
      await delivery.resume().catch(later('resuming pending deliveries'));
      if (repository.shared) delivery.startSweeping(config.DELIVERY_SWEEP_MS);
      await emergencies?.start().catch(later('following ringing emergencies'));
      await planner.start().catch(later('resuming scheduled sends and heartbeats'));
      retention.start();
      mqtt?.start();
    };
    return { config, app, domain, hub, plans, resources, start, close: () => resources.closeAll() };
  }, closeErrorLogger(logger));
}

/** Logs a cleanup that failed after a failed start (the start's own error is the one thrown). */
const closeErrorLogger = (logger: Logger) => (err: unknown) => logger.warn({ err }, 'closing after a failed start');

/**
 * Composes the service, listens, then starts its background work. Listening that fails (a port in use) closes all
 * it opened and throws; stop() closes the server, then everything else, last opened first.
 */
export async function startNotifications(settings: Config, overrides: NotificationOverrides, options: { handleSignals: boolean }): Promise<RunningService> {
  const service = await composeNotifications(settings, overrides);
  const { config, resources, hub } = service;
  const { logger } = overrides;
  const running = await resources.openAll(
    () => serve({ app: service.app, port: config.PORT, host: config.HOST, logger, handleSignals: options.handleSignals, close: service.close }),
    closeErrorLogger(logger),
  );
  const serverClosed = once(running.server, 'close');
  // Live streams would hold the server open; requests in flight get to finish (serve cuts them after its grace
  // period) before the history closes, so none of them is answered with a storage error.
  resources.add('http server', async () => {
    hub.closeAll();
    await serverClosed;
  });
  await service.start();
  return { port: running.port, stop: running.stop };
}
