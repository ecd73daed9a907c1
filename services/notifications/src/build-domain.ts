import { EventStreamHub, systemClock, type Clock, type Logger, type TokenRegistry } from '@homeops/common';
import type { MqttStatus } from '@homeops/common/mqtt';
import { PUSHOVER_SOUNDS } from './adapters/pushover/sounds.js';
import { InMemoryPlanStore } from './adapters/storage/in-memory-plan-store.js';
import type { AppConfig } from './app.js';
import { AlertHooks } from './domain/alert-hooks.js';
import type { AttachmentStore } from './domain/attachment-store.js';
import type { CreateDeps } from './domain/create-notification.use-case.js';
import { DeliveryWorker } from './domain/delivery.worker.js';
import { EmergencyWatch } from './domain/emergency-watch.js';
import type { NotificationContext } from './domain/notification-context.js';
import { NotificationEvents } from './domain/notification-events.js';
import type { NotificationRepository } from './domain/notification-repository.js';
import type { PlanStore } from './domain/plans/plan.js';
import { Planner } from './domain/plans/planner.js';
import type { PushProvider } from './domain/push-provider.js';
import type { FallbackChannels } from './domain/fallback.js';

/** What the app needs from the outside world; tests pass fakes. `events` and `delivery` default to fresh ones. */
export interface AppDeps {
  logger: Logger;
  repository: NotificationRepository;
  attachments: AttachmentStore;
  provider: PushProvider;
  /** The recipients' second channels (ntfy, mail), used when Pushover cannot deliver; none when absent. */
  fallback?: FallbackChannels;
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
  /** The scoped tokens (the service keeps them in a file); default none, in memory. */
  tokens?: TokenRegistry;
  /** Where scheduled sends and heartbeats are kept (the service's file or PostgreSQL); default in memory. */
  plans?: PlanStore;
  /** Pass it to control its life cycle (start, stop); otherwise one is built on `plans`. */
  planner?: Planner;
}

/** The domain objects of one service, built once: HTTP, MQTT, webhooks and heartbeats all use these. */
export interface Domain {
  ctx: NotificationContext;
  /** Pushover (or the disabled provider): health, sounds and metrics read it too. */
  provider: PushProvider;
  delivery: DeliveryWorker;
  emergencies: EmergencyWatch | undefined;
  /** What the create use-case needs beyond the context: the same for HTTP and the MQTT bridge. */
  create: CreateDeps;
  /** Alerts with a life cycle (webhooks, heartbeats, watches): a resolve ends what its firing rang. */
  alerts: AlertHooks;
  /** Scheduled sends and heartbeats. */
  planner: Planner;
}

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

/** The domain for a set of adapters: the context, the delivery worker, the emergency watch, alerts and the planner. */
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
    new DeliveryWorker(
      ctx,
      deps.provider,
      {
        minDelayMs: config.DELIVERY_RETRY_MIN_MS,
        maxDelayMs: config.DELIVERY_RETRY_MAX_MS,
        maxAttempts: config.DELIVERY_MAX_ATTEMPTS,
        maxAgeMs: (config.DELIVERY_MAX_AGE_SECONDS ?? 86_400) * 1000,
        concurrency: config.DELIVERY_CONCURRENCY,
        // The adapter times out first; this only bounds an adapter that hangs regardless.
        attemptTimeoutMs: config.PROVIDER_TIMEOUT_MS + 2_000,
      },
      deps.fallback && {
        channels: deps.fallback,
        settings: {
          afterMs: (config.FALLBACK_AFTER_SECONDS ?? 60) * 1000,
          timeoutMs: config.PROVIDER_TIMEOUT_MS + 2_000,
          minDelayMs: config.DELIVERY_RETRY_MIN_MS,
          maxDelayMs: config.DELIVERY_RETRY_MAX_MS,
          maxAttempts: config.DELIVERY_MAX_ATTEMPTS,
        },
      },
    );
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
  const alerts: AlertHooks = new AlertHooks(ctx, {
    create,
    receipts,
    callTimeoutMs: config.PROVIDER_TIMEOUT_MS + 2_000,
    // The planner is built on the alerts (heartbeats fire through them); it exists by the time an alert escalates.
    escalate: (input, given) => planner.escalate(input, given),
  });
  const planner: Planner =
    deps.planner ??
    new Planner({
      ctx,
      create,
      alerts,
      store: deps.plans ?? new InMemoryPlanStore(),
      receipts,
      callTimeoutMs: config.PROVIDER_TIMEOUT_MS + 2_000,
    });
  return { ctx, provider: deps.provider, delivery, emergencies, create, alerts, planner };
}
