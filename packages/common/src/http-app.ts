import express, { type Express } from 'express';
import helmet from 'helmet';
import type { Api } from './api.js';
import { requireApiKey } from './auth.js';
import { createErrorHandler, notFoundHandler } from './error-middleware.js';
import type { Logger } from './logger.js';
import { requestLog } from './request-log.js';

/** Paths reachable without the API key. */
export const PUBLIC_PATHS = ['/health', '/docs', '/openapi.json'] as const;

export interface HttpAppOptions {
  logger: Logger;
  api: Api;
  /** When set, every route but PUBLIC_PATHS requires it. */
  apiKey?: string | undefined;
  /** Largest JSON body accepted, e.g. `100kb`. */
  jsonLimit?: string;
  /** Middleware mounted after auth and before the JSON parser (e.g. a multipart parser). */
  beforeJson?: express.RequestHandler[];
}

type HeaderOp = [name: string, value: string | number | readonly string[] | undefined];

/**
 * helmet with static options sets the same headers on every response, through a dozen nested middleware calls:
 * record what it does once and replay that. Anything not plainly static (it calls more than setHeader and
 * removeHeader, or not next() at once) keeps the middleware itself.
 */
function replayStaticHeaders(middleware: express.RequestHandler): express.RequestHandler {
  const ops: HeaderOp[] = [];
  let passed = false;
  const recorder = {
    setHeader: (name: string, value: string | number | readonly string[]) => void ops.push([name, value]),
    removeHeader: (name: string) => void ops.push([name, undefined]),
  };
  try {
    void middleware(Object.create(null) as express.Request, recorder as unknown as express.Response, (err?: unknown) => {
      passed = err === undefined;
    });
  } catch {
    passed = false;
  }
  if (!passed) return middleware;
  return (_req, res, next) => {
    for (const [name, value] of ops) {
      if (value === undefined) res.removeHeader(name);
      else res.setHeader(name, value);
    }
    next();
  };
}

/** The baseline both services share: ids and access log, security headers, auth, JSON, docs, 404 and errors. */
export function createHttpApp(options: HttpAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.use(requestLog(options.logger));
  app.use(
    replayStaticHeaders(
      helmet({
        contentSecurityPolicy: {
          directives: {
            // Swagger UI's page sets inline styles and loads images as data URIs.
            'style-src': ["'self'", "'unsafe-inline'"],
            'img-src': ["'self'", 'data:'],
          },
        },
      }),
    ),
  );
  if (options.apiKey) {
    app.use(requireApiKey(options.apiKey, PUBLIC_PATHS));
  } else {
    options.logger.warn('API_KEY is not set: every route is open to anyone who can reach this port');
  }
  for (const handler of options.beforeJson ?? []) app.use(handler);
  app.use(express.json({ limit: options.jsonLimit ?? '100kb' }));
  options.api.mountDocs(app);
  app.use(options.api.router);
  app.use(notFoundHandler);
  app.use(createErrorHandler(options.logger));
  return app;
}
