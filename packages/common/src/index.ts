// What a domain may use is the core entry (core.ts, the `./core` export); the rest is the HTTP, config and logging side.
export * from './core.js';
export { createErrorHandler, notFoundHandler } from './error-middleware.js';
export {
  ConfigError,
  applyEnvAliases,
  loadConfig,
  loadConfigOrExit,
  readDotenvFiles,
  type EnvAlias,
  type EnvAliases,
  type LoadConfigOptions,
} from './config.js';
export { createLogger, REDACT_PATHS, type LoggerOptions } from './logger.js';
export { requestLog, requestIdOf } from './request-log.js';
export { authenticate, type AuthenticateOptions } from './auth.js';
export { Principal, principalOf, type DeviceTarget, type PrincipalKind } from './tokens/principal.js';
export { SCOPES, GrantSchema, GrantsSchema, type Grant, type Scope, type RouteAccess } from './tokens/scopes.js';
export { openTokens, TokenRegistry, type TokenView, type TokenSettings, type TokenRegistryOptions } from './tokens/token-registry.js';
export { FileTokenStore, InMemoryTokenStore, type StoredToken, type TokenStore } from './tokens/token-store.js';
export { registerTokenRoutes } from './tokens/token-routes.js';
export { openServiceTokens, tokensOfService, SHARED_TOKENS_FILE, type ServiceTokenSettings } from './tokens/token-split.js';
export { Api, parseInput, type RouteSpec, type RouteInput, type RouteResponse, type RouteEntry } from './api.js';
export { createHttpApp, httpAccessOptions, PUBLIC_PATHS, routeTableOf, type HttpAppOptions } from './http-app.js';
export { DASHBOARD_PATHS, mountDashboard } from './dashboard.js';
export { EventStreamHub, lastEventIdOf, type EventStream, type EventStreamOptions } from './sse.js';
export { serve, type ServeOptions, type RunningServer } from './server.js';
export { Resources, type Composed } from './resources.js';
export { processInfo } from './process-info.js';
export { sendJson } from './send-json.js';
export { createFileExclusively, writeFileAtomically } from './atomic-file.js';
export { LogLevelSchema, ApiKeySchema } from './config-schemas.js';
export { HttpAccessShape } from './config-schemas.js';
export { clientAddressOf } from './client-address.js';
export { resolveAccess, withResolvedAccess, isLoopbackHost, type Access, type AccessSettings, type AccessConfig } from './access.js';
export { isAllowedHost } from './request-guards.js';
export { AuthThrottle, type AuthThrottleOptions } from './auth-throttle.js';
export { keyAccepted } from './auth.js';
export { sendHealth, registerHealthRoute, OPEN_LAN_PROBLEM, type HealthEnvelope, type HealthAssessment, type HealthRouteOptions } from './health-view.js';
export { SERVER_LIMITS, type ServerLimits } from './server.js';
export { type EventStreamLimits } from './sse.js';
export { AppMetrics, UNMATCHED_ROUTE, HTTP_LATENCY_BUCKETS, routeTemplateOf, type KnownLabels } from './metrics.js';
