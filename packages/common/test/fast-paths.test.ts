import express, { type Express, type RequestHandler } from 'express';
import helmet from 'helmet';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { Api } from '../src/api.js';
import { AppError } from '../src/errors.js';
import { createHttpApp, HELMET_OPTIONS, inSeries, replayStaticHeaders } from '../src/http-app.js';
import { z } from '../src/zod.js';
import { createLogger, scalarLogger } from '../src/logger.js';

/** Every response header but the ones that differ per response. */
const stableHeaders = (headers: Record<string, unknown>) => {
  const { date: _date, etag: _etag, ...rest } = headers;
  return rest;
};

function appWith(middleware: RequestHandler[]): express.Express {
  const app = express();
  for (const m of middleware) app.use(m);
  app.get('/page', (_req, res) => void res.type('html').send('<p>hi</p>'));
  app.post('/json', (_req, res) => void res.status(201).json({ ok: true }));
  app.use((err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    void res.status(500).json({ failed: String((err as Error).message ?? err) });
  });
  return app;
}

describe('helmet replay (decision: docs/decisions/helmet-replay.md)', () => {
  it('sets exactly the headers helmet itself sets, on pages, JSON and errors', async () => {
    const slow = appWith([helmet(HELMET_OPTIONS)]);
    const fast = appWith([replayStaticHeaders(helmet(HELMET_OPTIONS))]);
    for (const send of [
      (app: express.Express) => request(app).get('/page'),
      (app: express.Express) => request(app).post('/json').send({}),
      (app: express.Express) => request(app).get('/missing'),
      (app: express.Express) => request(app).get('/page').set('X-Forwarded-Proto', 'https').set('Origin', 'http://other'),
    ]) {
      const [a, b] = await Promise.all([send(slow), send(fast)]);
      expect(b.status).toBe(a.status);
      expect(stableHeaders(b.headers)).toEqual(stableHeaders(a.headers));
    }
  });

  it('keeps a middleware that is not plainly static as it is', () => {
    const dynamic: RequestHandler = (_req, res, next) => {
      res.setHeader('X-Now', String(Math.random()));
      setImmediate(next);
    };
    expect(replayStaticHeaders(dynamic)).toBe(dynamic);
  });
});

describe('inSeries (decision: docs/decisions/in-series-baseline.md)', () => {
  const steps = (log: string[]): RequestHandler[] => [
    (req, _res, next) => {
      log.push(`a ${req.path}`);
      next();
    },
    async (req, _res, next) => {
      await Promise.resolve();
      log.push('b');
      if (req.path === '/reject') throw new Error('rejected');
      next();
    },
    (req, _res, next) => {
      log.push('c');
      if (req.path === '/throw') throw new Error('thrown');
      if (req.path === '/next-error') return next(new Error('passed'));
      next();
    },
  ];

  it('runs, stops and fails exactly as the same middleware mounted one by one', async () => {
    for (const path of ['/page', '/throw', '/reject', '/next-error']) {
      const slowLog: string[] = [];
      const fastLog: string[] = [];
      const slow = await request(appWith(steps(slowLog))).get(path);
      const fast = await request(appWith([inSeries(steps(fastLog))])).get(path);
      expect([fast.status, fast.body, fastLog], path).toEqual([slow.status, slow.body, slowLog]);
    }
  });
});

describe('unredacted twin logger (decision: docs/decisions/unredacted-twin-logger.md)', () => {
  it('writes an access line byte for byte as the redacting logger does, time aside', () => {
    const lines: string[] = [];
    const destination = { write: (line: string) => void lines.push(line) };
    const logger = createLogger({ service: 'twin', level: 'info', destination });
    const line = { reqId: 'r-1', method: 'POST', url: '/notifications?x=1', status: 201, ms: 1.25 };
    for (const level of ['info', 'warn', 'error'] as const) {
      logger[level](line, 'request completed');
      scalarLogger(logger)[level](line, 'request completed');
    }
    expect(lines).toHaveLength(6);
    const withoutTime = (text: string) => text.replace(/"time":\d+,/, '');
    for (let i = 0; i < lines.length; i += 2) expect(withoutTime(lines[i + 1]!)).toBe(withoutTime(lines[i]!));
    expect(scalarLogger(logger.child({ component: 'x' }))).not.toBe(scalarLogger(logger));
  });
});

describe('routes on the app (decision: docs/decisions/routes-on-app.md)', () => {
  /** The same Api, with its routes on a nested case-sensitive, strict router instead of on the app. */
  class NestedRouterApi extends Api {
    override mountRoutes(app: Express): void {
      const router = express.Router({ caseSensitive: true, strict: true });
      super.mountRoutes(router as unknown as Express);
      app.use(router);
    }
  }

  function serviceApp(api: Api): Express {
    api.route({
      method: 'get',
      path: '/items',
      summary: 'list',
      access: 'admin',
      query: z.object({ limit: z.coerce.number().int().positive().optional() }),
      responses: { 200: { description: 'items' } },
      handler: ({ query }, _req, res) => void res.json({ limit: query.limit ?? null }),
    });
    api.route({
      method: 'get',
      path: '/items/{id}',
      summary: 'one',
      access: 'admin',
      params: z.object({ id: z.string().regex(/^\d+$/) }),
      errors: ['NOTIFICATION_NOT_FOUND'],
      responses: { 200: { description: 'item' } },
      handler: ({ params }, _req, res) => {
        if (params.id === '404') throw new AppError('NOTIFICATION_NOT_FOUND', 'no such item');
        res.json({ id: params.id });
      },
    });
    api.route({
      method: 'post',
      path: '/items',
      summary: 'create',
      access: 'admin',
      body: z.object({ name: z.string().min(1) }),
      responses: { 201: { description: 'created' } },
      handler: async ({ body }, _req, res) => {
        await Promise.resolve();
        res.status(201).json({ name: body.name });
      },
    });
    api.route({
      method: 'delete',
      path: '/items/{id}',
      summary: 'delete',
      access: 'admin',
      params: z.object({ id: z.string() }),
      responses: { 204: { description: 'gone' } },
      handler: async () => {
        await Promise.resolve();
        throw new Error('storage broke');
      },
    });
    return createHttpApp({ logger: createLogger({ service: 'routes', level: 'silent' }), api });
  }

  it('answers every request exactly as the same routes on a nested router do, 404s and other spellings included', async () => {
    const fast = serviceApp(new Api({ title: 't', version: '1' }));
    const slow = serviceApp(new NestedRouterApi({ title: 't', version: '1' }));
    const requests: Array<[string, (app: Express) => request.Test]> = [
      ['list', (app) => request(app).get('/items')],
      ['list with query', (app) => request(app).get('/items?limit=5')],
      ['bad query', (app) => request(app).get('/items?limit=-1')],
      ['one', (app) => request(app).get('/items/7')],
      ['bad param', (app) => request(app).get('/items/x')],
      ['thrown AppError', (app) => request(app).get('/items/404')],
      ['create', (app) => request(app).post('/items').send({ name: 'a' })],
      ['invalid body', (app) => request(app).post('/items').send({ name: '' })],
      ['rejected handler', (app) => request(app).delete('/items/1')],
      ['HEAD', (app) => request(app).head('/items/7')],
      ['wrong method', (app) => request(app).put('/items/7').send({})],
      ['other case', (app) => request(app).get('/Items')],
      ['trailing slash', (app) => request(app).get('/items/')],
      ['trailing slash on a param route', (app) => request(app).get('/items/7/')],
      ['encoded path', (app) => request(app).get('/items/%37')],
      ['unknown', (app) => request(app).get('/nothing')],
    ];
    for (const [name, send] of requests) {
      const [a, b] = [await send(slow), await send(fast)];
      expect([b.status, stableHeaders(withoutRequestId(b.headers)), b.text], name).toEqual([a.status, stableHeaders(withoutRequestId(a.headers)), a.text]);
    }
  });
});

function withoutRequestId(headers: Record<string, unknown>): Record<string, unknown> {
  const { 'x-request-id': _id, ...rest } = headers;
  return rest;
}
