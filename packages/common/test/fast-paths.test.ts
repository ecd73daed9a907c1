import express, { type RequestHandler } from 'express';
import helmet from 'helmet';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { HELMET_OPTIONS, inSeries, replayStaticHeaders } from '../src/http-app.js';
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
