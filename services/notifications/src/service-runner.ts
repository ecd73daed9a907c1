import { once } from 'node:events';
import { dirname, join } from 'node:path';
import { openServiceTokens, serve, systemClock, withResolvedAccess, type Clock, type Logger } from '@homeops/common';
import { buildDomain, createApp, createStreamHub, NOTIFICATION_SCOPES } from './app.js';
import type { Config } from './config.js';
import type { AttachmentStore } from './domain/attachment-store.js';
import { sweepOrphanAttachments } from './domain/attachment-sweep.job.js';
import type { EventRelay } from './domain/notification-events.js';
import type { NotificationRepository } from './domain/notification-repository.js';
import type { PlanStore } from './domain/plans/plan.js';
import type { PushProvider } from './domain/push-provider.js';
import { RetentionJob } from './domain/retention.job.js';
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

/** A listening notification service. */
export interface RunningService {
  /** The port actually bound (useful with port 0). */
  port: number;
  /** Stops taking requests, ends live streams, lets attempts in progress finish, flushes and unlocks the history. */
  stop(): Promise<void>;
}

/**
 * Opens the history, deletes orphaned attachment files, starts delivery and retention, and listens; closes the history
 * again if listening fails.
 */
export async function startService(settings: Config, logger: Logger, adapters: ServiceAdapters, options: { handleSignals: boolean }): Promise<RunningService> {
  const { repository, attachments, provider } = adapters;
  const config = await withResolvedAccess(settings, join(dirname(settings.STORAGE_PATH), 'api-key'), logger);
  const clock = adapters.clock ?? systemClock;
  const tokens = await openServiceTokens({
    file: config.TOKENS_FILE,
    dataDir: dirname(settings.STORAGE_PATH),
    service: SERVICE_NAME,
    scopes: NOTIFICATION_SCOPES,
    clock,
    logger,
  });
  await repository.open();
  await adapters.plans?.open();
  if (!provider.enabled) {
    logger.warn(
      'PUSH DELIVERY IS OFF: PROVIDER_USER_KEY and PROVIDER_API_TOKEN (or PUSHOVER_USER_KEY and PUSHOVER_API_TOKEN) ' +
        'are not set. Notifications are stored with delivery "skipped" and never reach a device.',
    );
  }
  const hub = createStreamHub(config, clock);
  const base = { logger, repository, attachments, provider, hub, clock, ...(adapters.plans ? { plans: adapters.plans } : {}) };
  const domain = buildDomain(base, config);
  const { ctx, delivery, emergencies, planner } = domain;
  if (adapters.relay) await ctx.events.connect(adapters.relay);
  await sweepOrphanAttachments(ctx);
  const retention = new RetentionJob(
    ctx,
    { maxAgeDays: config.RETENTION_MAX_AGE_DAYS, maxPerRecipient: config.RETENTION_MAX_PER_RECIPIENT },
    config.RETENTION_INTERVAL_MS,
  );
  // Loaded only with MQTT_URL: a service without it never loads the bridge or the mqtt package.
  const mqtt = config.MQTT_URL === undefined ? undefined : (await import('./start-mqtt.js')).buildMqtt(config, domain, logger);
  const app = createApp(
    { ...base, events: ctx.events, delivery, tokens, planner, ...(emergencies ? { emergencies } : {}), ...(mqtt ? { mqttStatus: mqtt.status } : {}) },
    config,
  );
  let serverClosed: Promise<unknown> = Promise.resolve();
  const close = async () => {
    // Live streams would hold the server open; requests in flight get to finish (serve cuts them after its grace
    // period) before the history closes, so none of them is answered with a storage error.
    hub.closeAll();
    await serverClosed;
    await mqtt?.stop();
    await retention.stop();
    await planner.stop();
    await emergencies?.stop();
    await delivery.stop();
    await provider.stop?.();
    await adapters.relay?.stop();
    await repository.close();
    await adapters.plans?.close();
    await tokens.close();
  };
  let running;
  try {
    running = await serve({ app, port: config.PORT, host: config.HOST, logger, handleSignals: options.handleSignals, close });
  } catch (err) {
    await adapters.relay?.stop().catch(() => undefined);
    await repository.close().catch(() => undefined);
    throw err;
  }
  serverClosed = once(running.server, 'close');
  provider.start?.();
  const later = (what: string) => (err: unknown) => logger.error({ err }, `${what} failed; the service goes on`);
  await delivery.resume().catch(later('resuming pending deliveries'));
  if (repository.shared) delivery.startSweeping(config.DELIVERY_SWEEP_MS);
  await emergencies?.start().catch(later('following ringing emergencies'));
  await planner.start().catch(later('resuming scheduled sends and heartbeats'));
  retention.start();
  mqtt?.start();
  return { port: running.port, stop: running.stop };
}
