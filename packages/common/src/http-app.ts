import express, { type Express } from 'express';
import helmet from 'helmet';
import type { Api, RouteEntry } from './api.js';
import { authenticate } from './auth.js';
import { AuthThrottle, type AuthThrottleOptions } from './auth-throttle.js';
import { DASHBOARD_PATHS, mountDashboard } from './dashboard.js';
import { createErrorHandler, notFoundHandler } from './error-middleware.js';
import { assertJsonDepth } from './json-depth.js';
import type { Logger } from './logger.js';
import { metricsHandler, type AppMetrics } from './metrics.js';
import { refuseCrossOriginWrites, requireAllowedHost } from './request-guards.js';
import { requestLog } from './request-log.js';
import { principalOf } from './tokens/principal.js';
import type { TokenRegistry } from './tokens/token-registry.js';
import { registerTokenRoutes } from './tokens/token-routes.js';

/** Paths reachable without the API key. */
export const PUBLIC_PATHS = ['/health', '/docs', '/openapi.json'] as const;

export interface HttpAppOptions {
  logger: Logger;
  api: Api;
  /** When set, every route but PUBLIC_PATHS requires it or a token. */
  apiKey?: string | undefined;
  /** The service's scoped tokens: accepted besides the key, managed at /tokens (by the key or an admin token). */
  tokens?: TokenRegistry | undefined;
  /** Host names answered besides the safe ones (ALLOWED_HOSTS; see isAllowedHost). */
  allowedHosts?: readonly string[];
  /** How many wrong keys an address may send per minute (default 10). */
  authThrottle?: AuthThrottleOptions;
  /** Proxies whose X-Forwarded-For names the client (TRUSTED_PROXIES; see clientAddressOf); default none. */
  trustedProxies?: readonly string[];
  /** Largest JSON body accepted, e.g. `100kb`. */
  jsonLimit?: string;
  /** Middleware mounted after auth and before the JSON parser (e.g. a multipart parser). */
  beforeJson?: express.RequestHandler[];
  /** The folder of the built dashboard (a path or a file URL), served at `/` (see mountDashboard). */
  dashboard?: string | URL;
  /** When set, every request is counted in it and `GET /metrics` serves it (behind the API key like any route). */
  metrics?: AppMetrics | undefined;
}

/**
 * The services speak plain HTTP and are opened from other machines of the LAN by name or address, an origin
 * browsers do not trust. So no header that only works over HTTPS or on localhost: `upgrade-insecure-requests`
 * would send the page's own scripts to an https port nobody serves (a blank page), HSTS is ignored over HTTP
 * (a TLS proxy in front sets its own), and COOP and Origin-Agent-Cluster are ignored with a console error.
 */
export const HELMET_OPTIONS: Parameters<typeof helmet>[0] = {
  contentSecurityPolicy: {
    directives: {
      // Swagger UI's page sets inline styles and loads images as data URIs; the dashboards show image
      // attachments fetched with the API key header as blob: URLs.
      'style-src': ["'self'", "'unsafe-inline'"],
      'img-src': ["'self'", 'data:', 'blob:'],
      'upgrade-insecure-requests': null,
    },
  },
  strictTransportSecurity: false,
  crossOriginOpenerPolicy: false,
  originAgentCluster: false,
};

/** The access settings of a parsed config (HttpAccessShape) as createHttpApp options. */
export function httpAccessOptions(config: {
  API_KEY?: string | undefined;
  ALLOWED_HOSTS?: readonly string[];
  AUTH_MAX_FAILURES_PER_MINUTE?: number;
  TRUSTED_PROXIES?: readonly string[];
}): Pick<HttpAppOptions, 'apiKey' | 'allowedHosts' | 'authThrottle' | 'trustedProxies'> {
  return {
    apiKey: config.API_KEY,
    allowedHosts: config.ALLOWED_HOSTS ?? [],
    authThrottle: { maxFailures: config.AUTH_MAX_FAILURES_PER_MINUTE ?? 10 },
    trustedProxies: config.TRUSTED_PROXIES ?? [],
  };
}

/** The baseline both services share: ids and access log, security headers, auth, JSON, docs, 404 and errors. */
export function createHttpApp(options: HttpAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  // One spelling per route: '/Notifications' or '/notifications/' must not reach a handler past a parser or a check
  // that matched the exact path.
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  // req.ip (clientAddressOf) reads X-Forwarded-For only from these peers; none by default.
  const trusted = options.trustedProxies ?? [];
  app.set('trust proxy', trusted.length > 0 ? [...trusted] : false);
  const { metrics } = options;
  const baseline = [
    requestLog(options.logger, metrics && ((req, status, ms) => metrics.observeRequest(req, status, ms))),
    helmet(HELMET_OPTIONS),
    requireAllowedHost(options.allowedHosts ?? []),
    refuseCrossOriginWrites,
  ];
  if (options.apiKey) {
    const publicPaths = options.dashboard ? [...PUBLIC_PATHS, ...DASHBOARD_PATHS] : PUBLIC_PATHS;
    baseline.push(authenticate({ apiKey: options.apiKey, tokens: options.tokens, publicPaths, throttle: new AuthThrottle(options.authThrottle) }));
  }
  baseline.push(...(options.beforeJson ?? []));
  const json = express.json({ limit: options.jsonLimit ?? '100kb' });
  const parseJson: express.RequestHandler = (req, res, next) =>
    json(req, res, (err?: unknown) => {
      if (err !== undefined) return next(err);
      try {
        assertJsonDepth(req.body);
      } catch (error) {
        return next(error);
      }
      next();
    });
  // A body a route's own parser (beforeJson) already read is not looked at again.
  baseline.push((req, res, next) => (req.body === undefined ? parseJson(req, res, next) : next()));
  for (const step of baseline) app.use(step);
  if (metrics) {
    options.api.declare({ method: 'get', path: '/metrics', access: 'metrics' });
    const serve = metricsHandler(metrics);
    app.get('/metrics', (req, res, next) => {
      principalOf(res).require('metrics');
      return serve(req, res, next);
    });
  }
  if (options.tokens) registerTokenRoutes(options.api, options.tokens);
  options.api.mountRoutes(app);
  // What the access tests walk: every route and who may call it.
  app.locals.routeTable = options.api.routeTable();
  options.api.mountDocs(app);
  if (options.dashboard) mountDashboard(app, options.dashboard);
  app.use(notFoundHandler);
  app.use(createErrorHandler(options.logger));
  return app;
}

/** Every route of an app createHttpApp built, with who may call it (the route table the access tests walk). */
export function routeTableOf(app: Express): readonly RouteEntry[] {
  return (app.locals as { routeTable?: readonly RouteEntry[] }).routeTable ?? [];
}
