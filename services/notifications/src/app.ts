import {
  Api,
  AppMetrics,
  createHttpApp,
  EventStreamHub,
  httpAccessOptions,
  InMemoryTokenStore,
  systemClock,
  TokenRegistry,
  type Clock,
  type Logger,
  type Scope,
} from '@homeops/common';
import { MQTT_OFF, type MqttStatus } from '@homeops/common/mqtt';
import type { Express } from 'express';
import type { Config } from './config.js';
import { MustacheHookTemplates } from './adapters/hooks/hook-template.js';
import { AlertHooks } from './domain/alert-hooks.js';
import { registerHookRoutes } from './http/hooks.router.js';
import { registerPlanRoutes } from './http/plans.router.js';
import { InMemoryPlanStore } from './adapters/storage/in-memory-plan-store.js';
import type { PlanStore } from './domain/plans/plan.js';
import { Planner } from './domain/plans/planner.js';
import type { AttachmentStore } from './domain/attachment-store.js';
import type { CreateDeps } from './domain/create-notification.use-case.js';
import { DeliveryWorker } from './domain/delivery.worker.js';
import { EmergencyWatch } from './domain/emergency-watch.js';
import type { NotificationContext } from './domain/notification-context.js';
import { NotificationEvents } from './domain/notification-events.js';
import type { NotificationRepository } from './domain/notification-repository.js';
import type { PushProvider } from './domain/push-provider.js';
import { PUSHOVER_SOUND_NAMES, PUSHOVER_SOUNDS } from './adapters/pushover/sounds.js';
import { registerAttachmentRoutes } from './http/attachment.router.js';
import { createBodyParsers } from './http/attachment-upload.middleware.js';
import { registerHealthRoutes } from './http/health.router.js';
import { registerNotificationMetrics } from './http/notification.metrics.js';
import type { NotificationRoutesDeps } from './http/notification-routes.deps.js';
import { registerNotificationRoutes } from './http/notification.router.js';
import { SendRates } from './http/send-limits.js';
import { registerReadStatusRoutes } from './http/read-status.router.js';
import { registerRecipientRoutes } from './http/recipients.router.js';
import { registerSoundRoutes } from './http/sounds.router.js';
import { registerStreamRoutes } from './http/stream.router.js';
import { SERVICE_NAME, SERVICE_VERSION } from './version.js';

/** What the app needs from the outside world; tests pass fakes. `events` and `delivery` default to fresh ones. */
export interface AppDeps {
  logger: Logger;
  repository: NotificationRepository;
  attachments: AttachmentStore;
  provider: PushProvider;
  hub?: EventStreamHub;
  /** Time and timers of the domain and its jobs; default the system clock. */
  clock?: Clock;
  events?: NotificationEvents;
  /** Pass it to control its lifecycle (stop, resume); otherwise one is built from the config. */
  delivery?: DeliveryWorker;
  /** Follows emergency receipts; built from the config when the provider has a receipts API. */
  emergencies?: EmergencyWatch;
  /** The MQTT bridge's state for /health; `off` when absent. */
  mqttStatus?: () => MqttStatus;
  /** The scoped tokens (the service runner keeps them in a file); default none, in memory. */
  tokens?: TokenRegistry;
  /** Where scheduled sends and heartbeats are kept (the service runner's file or PostgreSQL); default in memory. */
  plans?: PlanStore;
  /** Pass it to control its life cycle (start, stop); otherwise one is built on `plans`. */
  planner?: Planner;
}

/** The scopes a notifications token may hold. */
export const NOTIFICATION_SCOPES: readonly Scope[] = ['admin', 'metrics', 'notifications:send', 'notifications:read'];

/** The settings createApp reads; `parseConfig()` gives the defaults. */
export type AppConfig = Pick<
  Config,
  'API_KEY' | 'SSE_HEARTBEAT_MS' | 'PROVIDER_TIMEOUT_MS' | 'DELIVERY_RETRY_MIN_MS' | 'DELIVERY_RETRY_MAX_MS' | 'DELIVERY_MAX_ATTEMPTS' | 'DELIVERY_CONCURRENCY'
> &
  // Optional for callers who built this type before they existed (library users): the config defaults when absent.
  Partial<
    Pick<
      Config,
      | 'DELIVERY_MAX_AGE_SECONDS'
      | 'EMERGENCY_RETRY_SECONDS'
      | 'EMERGENCY_EXPIRE_SECONDS'
      | 'EMERGENCY_POLL_SECONDS'
      | 'ALLOWED_HOSTS'
      | 'AUTH_MAX_FAILURES_PER_MINUTE'
      | 'ALLOW_OPEN_LAN'
      | 'SSE_MAX_STREAMS'
      | 'SSE_MAX_STREAMS_PER_ADDRESS'
      | 'SSE_MAX_STREAMS_PER_TOKEN'
      | 'TRUSTED_PROXIES'
      | 'METRICS'
      | 'HOOK_TEMPLATES_FILE'
    >
  >;

/** The event stream hub of an app: heartbeats and the limits on open streams. */
export function createStreamHub(config: AppConfig, clock: Clock = systemClock): EventStreamHub {
  return new EventStreamHub({
    heartbeatMs: config.SSE_HEARTBEAT_MS,
    clock,
    ...(config.SSE_MAX_STREAMS === undefined ? {} : { maxStreams: config.SSE_MAX_STREAMS }),
    ...(config.SSE_MAX_STREAMS_PER_ADDRESS === undefined ? {} : { maxStreamsPerAddress: config.SSE_MAX_STREAMS_PER_ADDRESS }),
    ...(config.SSE_MAX_STREAMS_PER_TOKEN === undefined ? {} : { maxStreamsPerToken: config.SSE_MAX_STREAMS_PER_TOKEN }),
  });
}

/** The domain objects of one app. */
export interface Domain {
  ctx: NotificationContext;
  delivery: DeliveryWorker;
  emergencies: EmergencyWatch | undefined;
  /** What the create use-case needs beyond the context: the same for HTTP and the MQTT bridge. */
  create: CreateDeps;
  /** Alerts with a life cycle (webhooks, heartbeats, watches): a resolve ends what its firing rang. */
  alerts: AlertHooks;
  /** Scheduled sends and heartbeats. */
  planner: Planner;
}

/** The domain context and delivery worker for a set of adapters (shared by createApp and the service runner). */
export function buildDomain(deps: AppDeps, config: AppConfig): Domain {
  const ctx: NotificationContext = {
    repository: deps.repository,
    attachments: deps.attachments,
    events: deps.events ?? new NotificationEvents(),
    clock: deps.clock ?? systemClock,
    logger: deps.logger,
  };
  const delivery =
    deps.delivery ??
    new DeliveryWorker(ctx, deps.provider, {
      minDelayMs: config.DELIVERY_RETRY_MIN_MS,
      maxDelayMs: config.DELIVERY_RETRY_MAX_MS,
      maxAttempts: config.DELIVERY_MAX_ATTEMPTS,
      maxAgeMs: (config.DELIVERY_MAX_AGE_SECONDS ?? 86_400) * 1000,
      concurrency: config.DELIVERY_CONCURRENCY,
      // The adapter times out first; this only bounds an adapter that hangs regardless.
      attemptTimeoutMs: config.PROVIDER_TIMEOUT_MS + 2_000,
    });
  const receipts = deps.provider.enabled ? deps.provider.receipts : undefined;
  const emergencies =
    deps.emergencies ??
    (receipts &&
      new EmergencyWatch(ctx, receipts, {
        pollMs: (config.EMERGENCY_POLL_SECONDS ?? 30) * 1000,
        callTimeoutMs: config.PROVIDER_TIMEOUT_MS + 2_000,
      }));
  const create: CreateDeps = {
    delivery,
    deliveryEnabled: deps.provider.enabled,
    provider: deps.provider,
    defaultSounds: PUSHOVER_SOUNDS,
    emergency: { retry: config.EMERGENCY_RETRY_SECONDS ?? 60, expire: config.EMERGENCY_EXPIRE_SECONDS ?? 3600 },
  };
  const alerts = new AlertHooks(ctx, {
    create,
    receipts: deps.provider.enabled ? deps.provider.receipts : undefined,
    callTimeoutMs: config.PROVIDER_TIMEOUT_MS + 2_000,
  });
  const planner = deps.planner ?? new Planner({ ctx, create, alerts, store: deps.plans ?? new InMemoryPlanStore() });
  return { ctx, delivery, emergencies, create, alerts, planner };
}

/** Builds the Express app; never listens. */
export function createApp(deps: AppDeps, config: AppConfig): Express {
  const { ctx, delivery, emergencies, create, alerts, planner } = buildDomain(deps, config);
  const hub = deps.hub ?? createStreamHub(config, ctx.clock);
  const routes: NotificationRoutesDeps = { ctx, hub, create, planner, sendRates: new SendRates(ctx.clock) };
  const api = new Api({
    title: SERVICE_NAME,
    version: SERVICE_VERSION,
    description: 'Pushover notifications with a durable read/unread history',
  });
  registerHealthRoutes(api, {
    repository: deps.repository,
    provider: deps.provider,
    delivery,
    emergencies: () => emergencies?.size ?? 0,
    streams: () => hub.size,
    startedAt: ctx.clock.now(),
    now: () => ctx.clock.now(),
    openLan: config.ALLOW_OPEN_LAN ?? false,
    mqtt: deps.mqttStatus ?? (() => MQTT_OFF),
  });
  // Before /notifications/single/{id}, which would take the stream of a recipient named "single" (ids never read "stream").
  registerStreamRoutes(api, routes);
  registerNotificationRoutes(api, routes);
  registerAttachmentRoutes(api, routes);
  registerReadStatusRoutes(api, routes);
  registerRecipientRoutes(api, routes);
  registerSoundRoutes(api, deps.provider, PUSHOVER_SOUND_NAMES);
  registerHookRoutes(api, { alerts, templates: MustacheHookTemplates.load(config.HOOK_TEMPLATES_FILE), sendRates: routes.sendRates });
  registerPlanRoutes(api, planner, routes.sendRates);
  const metrics = config.METRICS === 'off' ? undefined : new AppMetrics();
  if (metrics) {
    const emergenciesRinging = () => emergencies?.size ?? 0;
    registerNotificationMetrics(metrics, { ...deps, delivery, events: ctx.events, hub, clock: ctx.clock, emergencies: emergenciesRinging });
  }
  const tokens = deps.tokens ?? new TokenRegistry({ store: new InMemoryTokenStore(), clock: ctx.clock, scopes: NOTIFICATION_SCOPES });
  return createHttpApp({ logger: deps.logger, api, ...httpAccessOptions(config), tokens, dashboard: DASHBOARD_URL, beforeJson: [createBodyParsers], metrics });
}

/** The dashboard Vite builds (`pnpm build`); the same folder from src/ and from dist/. */
const DASHBOARD_URL = new URL('../web/dist', import.meta.url);
