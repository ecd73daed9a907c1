import type { Express, RequestHandler } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { Api } from '../src/api.js';
import { AppError } from '../src/errors.js';
import { createHttpApp } from '../src/http-app.js';
import { createLogger } from '../src/logger.js';
import { z } from '../src/zod.js';

// What createHttpApp answers, pinned value for value: the security headers, where an error in a baseline step
// ends, how a request finds its route. These held while hand-written fast paths stood in for helmet, the baseline
// layers and a nested router (issue 33 measured and removed them), and hold for the plain library now.

/** Every response header but the ones that differ per response. */
function stableHeaders(headers: Record<string, unknown>): Record<string, unknown> {
  const { date: _date, etag: _etag, 'x-request-id': _id, ...rest } = headers;
  return rest;
}

// helmet's, pinned in full below; every answer carries them.
const SECURITY_HEADERS = new Set([
  'content-security-policy',
  'cross-origin-resource-policy',
  'referrer-policy',
  'x-content-type-options',
  'x-dns-prefetch-control',
  'x-download-options',
  'x-frame-options',
  'x-permitted-cross-domain-policies',
  'x-xss-protection',
]);
const securityHeaders = (headers: Record<string, unknown>) => Object.fromEntries(Object.entries(headers).filter(([name]) => SECURITY_HEADERS.has(name)));
const otherHeaders = (headers: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(stableHeaders(headers)).filter(([name]) => !SECURITY_HEADERS.has(name)));

const answerOf = (res: request.Response) => ({ status: res.status, headers: stableHeaders(res.headers), text: res.text });

describe('createHttpApp responses, pinned', () => {
  function serviceApp(api: Api, beforeJson: RequestHandler[] = []): Express {
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
    return createHttpApp({ logger: createLogger({ service: 'routes', level: 'silent' }), api, beforeJson });
  }

  it('sends exactly these security headers on a page, JSON, a 404 and an https-forwarded cross-origin request', async () => {
    const app = serviceApp(new Api({ title: 't', version: '1' }));
    expect(answerOf(await request(app).get('/docs/')).headers).toMatchInlineSnapshot(`
      {
        "connection": "close",
        "content-length": "3097",
        "content-security-policy": "default-src 'self';base-uri 'self';font-src 'self' https: data:;form-action 'self';frame-ancestors 'self';img-src 'self' data: blob:;object-src 'none';script-src 'self';script-src-attr 'none';style-src 'self' 'unsafe-inline'",
        "content-type": "text/html; charset=utf-8",
        "cross-origin-resource-policy": "same-origin",
        "referrer-policy": "no-referrer",
        "x-content-type-options": "nosniff",
        "x-dns-prefetch-control": "off",
        "x-download-options": "noopen",
        "x-frame-options": "SAMEORIGIN",
        "x-permitted-cross-domain-policies": "none",
        "x-xss-protection": "0",
      }
    `);
    expect(answerOf(await request(app).get('/items')).headers).toMatchInlineSnapshot(`
      {
        "connection": "close",
        "content-length": "14",
        "content-security-policy": "default-src 'self';base-uri 'self';font-src 'self' https: data:;form-action 'self';frame-ancestors 'self';img-src 'self' data: blob:;object-src 'none';script-src 'self';script-src-attr 'none';style-src 'self' 'unsafe-inline'",
        "content-type": "application/json; charset=utf-8",
        "cross-origin-resource-policy": "same-origin",
        "referrer-policy": "no-referrer",
        "x-content-type-options": "nosniff",
        "x-dns-prefetch-control": "off",
        "x-download-options": "noopen",
        "x-frame-options": "SAMEORIGIN",
        "x-permitted-cross-domain-policies": "none",
        "x-xss-protection": "0",
      }
    `);
    expect(answerOf(await request(app).get('/nothing')).headers).toMatchInlineSnapshot(`
      {
        "connection": "close",
        "content-length": "108",
        "content-security-policy": "default-src 'self';base-uri 'self';font-src 'self' https: data:;form-action 'self';frame-ancestors 'self';img-src 'self' data: blob:;object-src 'none';script-src 'self';script-src-attr 'none';style-src 'self' 'unsafe-inline'",
        "content-type": "application/json; charset=utf-8",
        "cross-origin-resource-policy": "same-origin",
        "referrer-policy": "no-referrer",
        "x-content-type-options": "nosniff",
        "x-dns-prefetch-control": "off",
        "x-download-options": "noopen",
        "x-frame-options": "SAMEORIGIN",
        "x-permitted-cross-domain-policies": "none",
        "x-xss-protection": "0",
      }
    `);
    const forwarded = await request(app).get('/items').set('X-Forwarded-Proto', 'https').set('Origin', 'http://other');
    expect(answerOf(forwarded).headers).toMatchInlineSnapshot(`
      {
        "connection": "close",
        "content-length": "14",
        "content-security-policy": "default-src 'self';base-uri 'self';font-src 'self' https: data:;form-action 'self';frame-ancestors 'self';img-src 'self' data: blob:;object-src 'none';script-src 'self';script-src-attr 'none';style-src 'self' 'unsafe-inline'",
        "content-type": "application/json; charset=utf-8",
        "cross-origin-resource-policy": "same-origin",
        "referrer-policy": "no-referrer",
        "x-content-type-options": "nosniff",
        "x-dns-prefetch-control": "off",
        "x-download-options": "noopen",
        "x-frame-options": "SAMEORIGIN",
        "x-permitted-cross-domain-policies": "none",
        "x-xss-protection": "0",
      }
    `);
  });

  it('sends an error thrown, rejected or passed on by a baseline step to the error handler, and stops there', async () => {
    const ran: string[] = [];
    const steps: RequestHandler[] = [
      (req, _res, next) => {
        ran.push(`a ${req.path}`);
        next();
      },
      async (req, _res, next) => {
        await Promise.resolve();
        ran.push('b');
        if (req.path === '/reject') throw new AppError('STORAGE_UNAVAILABLE', 'rejected');
        next();
      },
      (req, _res, next) => {
        ran.push('c');
        if (req.path === '/throw') throw new AppError('VALIDATION_FAILED', 'thrown');
        if (req.path === '/next-error') return next(new Error('passed'));
        next();
      },
    ];
    const app = serviceApp(new Api({ title: 't', version: '1' }), steps);
    const seen: Record<string, { status: number; text: string; ran: string[] }> = {};
    for (const path of ['/items', '/throw', '/reject', '/next-error']) {
      ran.length = 0;
      const res = await request(app).get(path);
      seen[path] = { status: res.status, text: res.text, ran: [...ran] };
    }
    expect(seen).toMatchInlineSnapshot(`
      {
        "/items": {
          "ran": [
            "a /items",
            "b",
            "c",
          ],
          "status": 200,
          "text": "{"limit":null}",
        },
        "/next-error": {
          "ran": [
            "a /next-error",
            "b",
            "c",
          ],
          "status": 500,
          "text": "{"error":"Internal server error","solution":"Retry later; if it persists, report it with the X-Request-Id of this response","code":"INTERNAL"}",
        },
        "/reject": {
          "ran": [
            "a /reject",
            "b",
          ],
          "status": 503,
          "text": "{"error":"rejected","solution":"Check disk space and permissions of the storage path; see /health","code":"STORAGE_UNAVAILABLE"}",
        },
        "/throw": {
          "ran": [
            "a /throw",
            "b",
            "c",
          ],
          "status": 400,
          "text": "{"error":"thrown","solution":"Fix the fields listed in details and retry","code":"VALIDATION_FAILED"}",
        },
      }
    `);
  });

  it('answers each spelling, method and failure of a route as pinned, 404s and other spellings included', async () => {
    const app = serviceApp(new Api({ title: 't', version: '1' }));
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
    const security = securityHeaders((await request(app).get('/items')).headers);
    const answers: Record<string, { status: number; headers: Record<string, unknown>; text: string }> = {};
    for (const [name, send] of requests) {
      const res = await send(app);
      expect(securityHeaders(res.headers), name).toEqual(security);
      answers[name] = { status: res.status, headers: otherHeaders(res.headers), text: res.text };
    }
    expect(answers).toMatchInlineSnapshot(`
      {
        "HEAD": {
          "headers": {
            "connection": "close",
            "content-length": "10",
            "content-type": "application/json; charset=utf-8",
          },
          "status": 200,
          "text": undefined,
        },
        "bad param": {
          "headers": {
            "connection": "close",
            "content-length": "201",
            "content-type": "application/json; charset=utf-8",
          },
          "status": 400,
          "text": "{"error":"Invalid params.id","solution":"Fix the fields listed in details and retry","code":"VALIDATION_FAILED","details":[{"path":"params.id","message":"Invalid string: must match pattern /^\\\\d+$/"}]}",
        },
        "bad query": {
          "headers": {
            "connection": "close",
            "content-length": "197",
            "content-type": "application/json; charset=utf-8",
          },
          "status": 400,
          "text": "{"error":"Invalid query.limit","solution":"Fix the fields listed in details and retry","code":"VALIDATION_FAILED","details":[{"path":"query.limit","message":"Too small: expected number to be >0"}]}",
        },
        "create": {
          "headers": {
            "connection": "close",
            "content-length": "12",
            "content-type": "application/json; charset=utf-8",
          },
          "status": 201,
          "text": "{"name":"a"}",
        },
        "encoded path": {
          "headers": {
            "connection": "close",
            "content-length": "10",
            "content-type": "application/json; charset=utf-8",
          },
          "status": 200,
          "text": "{"id":"7"}",
        },
        "invalid body": {
          "headers": {
            "connection": "close",
            "content-length": "207",
            "content-type": "application/json; charset=utf-8",
          },
          "status": 400,
          "text": "{"error":"Invalid body.name","solution":"Fix the fields listed in details and retry","code":"VALIDATION_FAILED","details":[{"path":"body.name","message":"Too small: expected string to have >=1 characters"}]}",
        },
        "list": {
          "headers": {
            "connection": "close",
            "content-length": "14",
            "content-type": "application/json; charset=utf-8",
          },
          "status": 200,
          "text": "{"limit":null}",
        },
        "list with query": {
          "headers": {
            "connection": "close",
            "content-length": "11",
            "content-type": "application/json; charset=utf-8",
          },
          "status": 200,
          "text": "{"limit":5}",
        },
        "one": {
          "headers": {
            "connection": "close",
            "content-length": "10",
            "content-type": "application/json; charset=utf-8",
          },
          "status": 200,
          "text": "{"id":"7"}",
        },
        "other case": {
          "headers": {
            "connection": "close",
            "content-length": "106",
            "content-type": "application/json; charset=utf-8",
          },
          "status": 404,
          "text": "{"error":"No route for GET /Items","solution":"See /docs for the list of routes","code":"ROUTE_NOT_FOUND"}",
        },
        "rejected handler": {
          "headers": {
            "connection": "close",
            "content-length": "142",
            "content-type": "application/json; charset=utf-8",
          },
          "status": 500,
          "text": "{"error":"Internal server error","solution":"Retry later; if it persists, report it with the X-Request-Id of this response","code":"INTERNAL"}",
        },
        "thrown AppError": {
          "headers": {
            "connection": "close",
            "content-length": "137",
            "content-type": "application/json; charset=utf-8",
          },
          "status": 404,
          "text": "{"error":"no such item","solution":"Check the id; list notifications with GET /notifications/:recipient","code":"NOTIFICATION_NOT_FOUND"}",
        },
        "trailing slash": {
          "headers": {
            "connection": "close",
            "content-length": "107",
            "content-type": "application/json; charset=utf-8",
          },
          "status": 404,
          "text": "{"error":"No route for GET /items/","solution":"See /docs for the list of routes","code":"ROUTE_NOT_FOUND"}",
        },
        "trailing slash on a param route": {
          "headers": {
            "connection": "close",
            "content-length": "109",
            "content-type": "application/json; charset=utf-8",
          },
          "status": 404,
          "text": "{"error":"No route for GET /items/7/","solution":"See /docs for the list of routes","code":"ROUTE_NOT_FOUND"}",
        },
        "unknown": {
          "headers": {
            "connection": "close",
            "content-length": "108",
            "content-type": "application/json; charset=utf-8",
          },
          "status": 404,
          "text": "{"error":"No route for GET /nothing","solution":"See /docs for the list of routes","code":"ROUTE_NOT_FOUND"}",
        },
        "wrong method": {
          "headers": {
            "connection": "close",
            "content-length": "108",
            "content-type": "application/json; charset=utf-8",
          },
          "status": 404,
          "text": "{"error":"No route for PUT /items/7","solution":"See /docs for the list of routes","code":"ROUTE_NOT_FOUND"}",
        },
      }
    `);
  });
});
