import { Api, createHttpApp, httpAccessOptions, type AppMetrics, type EventStreamHub, type Logger, type Scope, type TokenRegistry } from '@homeops/common';
import type { MqttStatus } from '@homeops/common/mqtt';
import type { Express } from 'express';
import type { Config } from './config.js';
import type { Domain } from './build-domain.js';
import type { HookTemplates } from './domain/alert-hooks.js';
import { registerHookRoutes } from './http/hooks.router.js';
import { registerPlanRoutes } from './http/plans.router.js';
import { PUSHOVER_SOUND_NAMES } from './adapters/pushover/sounds.js';
import { registerAttachmentRoutes } from './http/attachment.router.js';
import { createBodyParsers } from './http/attachment-upload.middleware.js';
import { registerHealthRoutes } from './http/health.router.js';
import { registerNotificationMetrics } from './http/notification.metrics.js';
import type { NotificationRoutesDeps } from './http/notification-routes.deps.js';
import { registerNotificationRoutes } from './http/notification.router.js';
import type { SendRates } from './http/send-limits.js';
import { registerReadStatusRoutes } from './http/read-status.router.js';
import { registerRecipientRoutes } from './http/recipients.router.js';
import { registerSoundRoutes } from './http/sounds.router.js';
import { registerStreamRoutes } from './http/stream.router.js';
import { SERVICE_NAME, SERVICE_VERSION } from './version.js';

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
      | 'FALLBACK_AFTER_SECONDS'
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

/** What the app serves, all built by the composition (compose.ts): createApp only wires routes to them. */
export interface AppParts {
  logger: Logger;
  domain: Domain;
  hub: EventStreamHub;
  tokens: TokenRegistry;
  /** The webhook templates (built-in and HOOK_TEMPLATES_FILE). */
  templates: HookTemplates;
  /** The send rates of tokens that have one, shared by the create, hook and plan routes. */
  sendRates: SendRates;
  /** Undefined with METRICS=off. */
  metrics: AppMetrics | undefined;
  /** The MQTT bridge's state for /health. */
  mqttStatus: () => MqttStatus;
}

/** Builds the Express app on an already built domain; builds no service or store, never listens. */
export function createApp(parts: AppParts, config: AppConfig): Express {
  const { domain, hub, metrics, sendRates } = parts;
  const { ctx, provider, delivery, emergencies, create, alerts, planner } = domain;
  const { repository } = ctx;
  const routes: NotificationRoutesDeps = { ctx, hub, create, planner, sendRates };
  const api = new Api({
    title: SERVICE_NAME,
    version: SERVICE_VERSION,
    description: 'Pushover notifications with a durable read/unread history',
  });
  const emergenciesRinging = () => emergencies?.size ?? 0;
  registerHealthRoutes(api, {
    repository,
    provider,
    delivery,
    emergencies: emergenciesRinging,
    streams: () => hub.size,
    startedAt: ctx.clock.now(),
    now: () => ctx.clock.now(),
    openLan: config.ALLOW_OPEN_LAN ?? false,
    mqtt: parts.mqttStatus,
  });
  // Before /notifications/single/{id}, which would take the stream of a recipient named "single" (ids never read "stream").
  registerStreamRoutes(api, routes);
  registerNotificationRoutes(api, routes);
  registerAttachmentRoutes(api, routes);
  registerReadStatusRoutes(api, routes);
  registerRecipientRoutes(api, routes);
  registerSoundRoutes(api, provider, PUSHOVER_SOUND_NAMES);
  registerHookRoutes(api, { alerts, templates: parts.templates, sendRates });
  registerPlanRoutes(api, planner, sendRates);
  if (metrics)
    registerNotificationMetrics(metrics, { repository, provider, delivery, events: ctx.events, hub, clock: ctx.clock, emergencies: emergenciesRinging });
  return createHttpApp({
    logger: parts.logger,
    api,
    ...httpAccessOptions(config),
    tokens: parts.tokens,
    dashboard: DASHBOARD_URL,
    beforeJson: [createBodyParsers],
    metrics,
  });
}

/** The dashboard Vite builds (`pnpm build`); the same folder from src/ and from dist/. */
const DASHBOARD_URL = new URL('../web/dist', import.meta.url);
