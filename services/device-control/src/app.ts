import { Api, createHttpApp, httpAccessOptions, type AppMetrics, type Clock, type Logger, type Scope, type TokenRegistry } from '@homeops/common';
import type { Express } from 'express';
import type { MqttStatus } from '@homeops/common/mqtt';
import type { Config } from './config.js';
import type { DeviceCloud } from './domain/device-cloud.js';
import type { DeviceService } from './domain/device.service.js';
import { registerCloudRoutes } from './http/cloud.router.js';
import { registerDeviceRoutes } from './http/devices.router.js';
import { registerEventRoutes } from './http/events.router.js';
import type { EventStreams } from './http/event-streams.js';
import { registerHealthRoutes } from './http/health.router.js';
import { registerDeviceMetrics } from './http/device.metrics.js';
import { requireJsonBody } from './http/require-json-body.js';
import { FAMILIES, FAMILY_EVENTS } from './families/index.js';
import { registerWatchRoutes } from './http/watches.router.js';
import type { DeviceWatches } from './domain/watches/device-watches.js';
import { SERVICE_NAME, SERVICE_VERSION } from './version.js';

/** What the app serves, all built by the composition (compose.ts): createApp only wires routes to them. */
export interface AppDeps {
  logger: Logger;
  cloud: DeviceCloud;
  devices: DeviceService;
  streams: EventStreams;
  clock: Clock;
  /** The scoped tokens (kept in a file by the service). */
  tokens: TokenRegistry;
  /** The device watches (kept in WATCHES_FILE by the service). */
  watches: DeviceWatches;
  /** Undefined with METRICS=off. */
  metrics: AppMetrics | undefined;
  /** The MQTT bridge's state for /health; `off` when absent. */
  mqttStatus?: () => MqttStatus;
}

/** The settings createApp reads; the access ones default to a service without a key on loopback. */
export type AppConfig = Pick<Config, 'API_KEY'> &
  Partial<Pick<Config, 'ALLOWED_HOSTS' | 'AUTH_MAX_FAILURES_PER_MINUTE' | 'TRUSTED_PROXIES' | 'ALLOW_OPEN_LAN'>>;

/** The scopes a device-control token may hold. */
export const DEVICE_SCOPES: readonly Scope[] = ['admin', 'metrics', 'devices:read', 'devices:control'];

/** Builds the Express app on what the composition built; builds no service or store, never listens, starts nothing. */
export function createApp(deps: AppDeps, config: AppConfig): Express {
  const { clock, metrics } = deps;
  const api = new Api({
    title: SERVICE_NAME,
    version: SERVICE_VERSION,
    description: 'Lists the devices of a Meross cloud account and controls them, over the LAN first where it can.',
  });
  registerHealthRoutes(api, {
    ...deps,
    ...(deps.mqttStatus ? { mqtt: deps.mqttStatus } : {}),
    startedAt: clock.now(),
    now: () => clock.now(),
    openLan: config.ALLOW_OPEN_LAN ?? false,
    families: FAMILIES,
  });
  if (metrics) registerDeviceMetrics(metrics, { ...deps, now: () => clock.now() });
  registerDeviceRoutes(api, deps.devices, FAMILIES);
  for (const family of FAMILIES) family.registerRoutes(api, deps.devices, metrics);
  registerEventRoutes(api, deps.devices, deps.streams, FAMILY_EVENTS);
  registerCloudRoutes(api, deps.devices);
  registerWatchRoutes(api, deps.watches);
  return createHttpApp({
    logger: deps.logger,
    api,
    ...httpAccessOptions(config),
    tokens: deps.tokens,
    dashboard: DASHBOARD_URL,
    beforeJson: [requireJsonBody],
    metrics,
  });
}

/** The dashboard Vite builds (`pnpm build`); the same folder from src/ and from dist/. */
const DASHBOARD_URL = new URL('../web/dist', import.meta.url);
