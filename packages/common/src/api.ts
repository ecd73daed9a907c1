import { OpenAPIRegistry, OpenApiGeneratorV3 } from '@asteasolutions/zod-to-openapi';
import express, { type Express, type Request, type RequestHandler, type Response } from 'express';
import swaggerUi from 'swagger-ui-express';
import type { ZodType, z } from 'zod';
import { ErrorBodySchema } from './error-body.js';
import { AppError, ERROR_TABLE, type ErrorCode } from './errors.js';
import { assertNotCrossSite } from './request-guards.js';
import { principalOf, type Principal } from './tokens/principal.js';
import type { RouteAccess } from './tokens/scopes.js';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Schema = ZodType | undefined;
type Infer<S extends Schema> = S extends ZodType ? z.infer<S> : undefined;

/** What a handler receives: the parsed (validated, coerced) parts of the request. */
export interface RouteInput<P extends Schema, Q extends Schema, B extends Schema> {
  params: Infer<P>;
  query: Infer<Q>;
  body: Infer<B>;
  /** Who calls; the route's `access` is already checked, limits within a scope (recipients, devices) are the handler's. */
  principal: Principal;
}

export interface RouteResponse {
  description: string;
  schema?: ZodType;
  contentType?: string;
}

/** One route: the schemas that validate it are the ones that document it. */
export interface RouteSpec<P extends Schema, Q extends Schema, B extends Schema> {
  method: Method;
  /** OpenAPI form, e.g. `/devices/{uuid}/toggle`. */
  path: string;
  summary: string;
  /** Who may call it: anyone, any valid key or token, or a token with this scope (admin has every scope). */
  access: RouteAccess;
  tags?: string[];
  params?: P;
  query?: Q;
  body?: B;
  /** Other request content types accepted besides JSON (documented only). */
  bodyContentTypes?: Record<string, ZodType>;
  responses: Record<number, RouteResponse>;
  /** Error codes this route can answer with; their statuses are documented with the error body. */
  errors?: ErrorCode[];
  /**
   * A GET that changes something (a heartbeat ping, kept as GET for cron and curl): refused with CROSS_ORIGIN_REFUSED
   * when a page on another site sends it (an `<img>`), as every write is.
   */
  changesState?: boolean;
  handler: (input: RouteInput<P, Q, B>, req: Request, res: Response) => Promise<void> | void;
}

function issuesToDetails(part: string, error: z.ZodError) {
  return error.issues.map((issue) => ({
    path: [part, ...issue.path.map(String)].join('.'),
    message: issue.message,
  }));
}

function validationFailed(details: Array<{ path: string; message: string }>): AppError {
  return new AppError('VALIDATION_FAILED', `Invalid ${details.map((d) => d.path).join(', ')}`, { details });
}

/** Parses an input the way a route's schemas do (a message from another door than HTTP): VALIDATION_FAILED naming each field. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, part: string): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw validationFailed(issuesToDetails(part, parsed.error));
  return parsed.data;
}

interface MountedRoute {
  method: Method;
  path: string;
  handler: RequestHandler;
}

/** One row of the route table: what the access tests and the dashboards go by. */
export interface RouteEntry {
  method: Method;
  /** OpenAPI form, e.g. `/devices/{uuid}/toggle`. */
  path: string;
  access: RouteAccess;
}

function accessText(access: RouteAccess): string {
  if (access === 'public') return 'Needs no key.';
  if (access === 'authenticated') return 'Needs the API key or any valid token.';
  return `Needs the API key or a token with the \`${access}\` scope (or \`admin\`).`;
}

/** Collects routes and an OpenAPI document at the same time; `mountRoutes` adds the routes to an app. */
export class Api {
  private readonly routes: MountedRoute[] = [];
  private readonly table: RouteEntry[] = [];
  private readonly registry = new OpenAPIRegistry();

  constructor(private readonly info: { title: string; version: string; description?: string }) {
    this.registry.register('ErrorBody', ErrorBodySchema);
    const scopes = 'The API key, or a token from POST /tokens with the scope each operation names (x-required-scope).';
    this.registry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer', description: scopes });
    this.registry.registerComponent('securitySchemes', 'apiKey', { type: 'apiKey', in: 'header', name: 'X-API-Key', description: scopes });
  }

  route<P extends Schema = undefined, Q extends Schema = undefined, B extends Schema = undefined>(spec: RouteSpec<P, Q, B>): void {
    this.document(spec);
    const path = spec.path.replace(/\{(\w+)\}/g, ':$1');
    const handler: RequestHandler = async (req, res) => {
      if (spec.changesState) assertNotCrossSite(req);
      const principal = principalOf(res);
      principal.require(spec.access);
      // Only the parts the route declares are read (optional calls skip their arguments): Express 5 parses
      // req.query anew on every access.
      const params = spec.params?.safeParse(req.params);
      const query = spec.query?.safeParse(req.query);
      const body = spec.body?.safeParse(req.body ?? {});
      if (params?.success === false || query?.success === false || body?.success === false) {
        const details = [
          ...(params?.success === false ? issuesToDetails('params', params.error) : []),
          ...(query?.success === false ? issuesToDetails('query', query.error) : []),
          ...(body?.success === false ? issuesToDetails('body', body.error) : []),
        ];
        throw validationFailed(details);
      }
      await spec.handler({ params: params?.data, query: query?.data, body: body?.data, principal } as RouteInput<P, Q, B>, req, res);
    };
    this.routes.push({ method: spec.method, path, handler });
    this.table.push({ method: spec.method, path: spec.path, access: spec.access });
  }

  /** Declares a route served outside `route` (e.g. `/metrics`), so the route table stays whole. */
  declare(entry: RouteEntry): void {
    this.table.push(entry);
  }

  /** Every route with who may call it. */
  routeTable(): readonly RouteEntry[] {
    return this.table;
  }

  /** Adds every route registered so far to `app`, on one router as strict about spelling as the app. */
  mountRoutes(app: Express): void {
    const router = express.Router({ caseSensitive: true, strict: true });
    for (const route of this.routes) router[route.method](route.path, route.handler);
    app.use(router);
  }

  private document<P extends Schema, Q extends Schema, B extends Schema>(spec: RouteSpec<P, Q, B>): void {
    const responses: Record<string, { description: string; content?: Record<string, { schema: ZodType }> }> = {};
    for (const [status, r] of Object.entries(spec.responses)) {
      responses[status] = r.schema
        ? { description: r.description, content: { [r.contentType ?? 'application/json']: { schema: r.schema } } }
        : { description: r.description };
    }
    // What the baseline in front of every route may answer (see createHttpApp).
    const baseline: ErrorCode[] = spec.method === 'get' && !spec.changesState ? ['HOST_NOT_ALLOWED'] : ['HOST_NOT_ALLOWED', 'CROSS_ORIGIN_REFUSED'];
    const auth: ErrorCode[] = spec.access === 'public' ? [] : spec.access === 'authenticated' ? ['UNAUTHORIZED'] : ['UNAUTHORIZED', 'SCOPE_MISSING'];
    for (const code of [...(spec.errors ?? []), 'VALIDATION_FAILED' as const, ...auth, ...baseline]) {
      const { status, error } = ERROR_TABLE[code];
      const existing = responses[status];
      responses[status] = {
        description: existing ? `${existing.description}; ${error}` : error,
        content: { 'application/json': { schema: ErrorBodySchema } },
      };
    }
    const content: Record<string, { schema: ZodType }> = {};
    if (spec.body) content['application/json'] = { schema: spec.body };
    for (const [type, schema] of Object.entries(spec.bodyContentTypes ?? {})) content[type] = { schema };
    this.registry.registerPath({
      method: spec.method,
      path: spec.path,
      summary: spec.summary,
      description: accessText(spec.access),
      tags: spec.tags ?? [],
      security: spec.access === 'public' ? [] : [{ bearer: [] }, { apiKey: [] }],
      'x-required-scope': spec.access,
      request: {
        ...(spec.params ? { params: spec.params as never } : {}),
        ...(spec.query ? { query: spec.query as never } : {}),
        ...(Object.keys(content).length > 0 ? { body: { content } } : {}),
      },
      responses,
    });
  }

  /** The OpenAPI 3.0 document of every route registered so far. */
  openApiDocument(): ReturnType<OpenApiGeneratorV3['generateDocument']> {
    return new OpenApiGeneratorV3(this.registry.definitions).generateDocument({
      openapi: '3.0.3',
      info: this.info,
    });
  }

  /** Serves `/openapi.json` and Swagger UI at `/docs`. */
  mountDocs(app: Express): void {
    const document = this.openApiDocument();
    app.get('/openapi.json', (_req, res) => {
      res.json(document);
    });
    app.use('/docs', swaggerUi.serve, swaggerUi.setup(document, { customSiteTitle: this.info.title }));
  }
}
