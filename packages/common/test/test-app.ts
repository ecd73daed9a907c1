import { Api, createHttpApp, type HealthEnvelope, type HttpAppOptions, sendHealth, z } from '../src/index.js';
import { captureLogger } from './helpers.js';

/** POST /things/{id} with a numeric id, for a test to give its body, responses and handler. */
export const MAKE_THING = {
  method: 'post',
  path: '/things/{id}',
  summary: 'make a thing',
  access: 'admin',
  params: z.object({ id: z.string().regex(/^\d+$/) }),
} as const;

/** How a test's app differs: the Api's version, what /health answers, its own routes, and createHttpApp's options. */
export interface TestAppOptions extends Omit<HttpAppOptions, 'logger' | 'api'> {
  version?: string;
  /** Sent through sendHealth (the full body to the key only); without it /health answers `{ status: 'ok' }`. */
  health?: HealthEnvelope & Record<string, unknown>;
  /** Adds the routes the test calls, after GET /health. */
  routes?: (api: Api) => void;
}

/** The HTTP baseline as a service builds it: an Api titled `test` with a public GET /health, and a logger the test reads. */
export function buildTestApp({ version = '1.0.0', health, routes, ...options }: TestAppOptions = {}) {
  const log = captureLogger();
  const api = new Api({ title: 'test', version });
  api.route({
    method: 'get',
    path: '/health',
    summary: 'health',
    access: 'public',
    responses: { 200: { description: 'ok' } },
    handler: (_input, _req, res) => (health ? sendHealth(res, 200, health) : void res.json({ status: 'ok' })),
  });
  routes?.(api);
  return { app: createHttpApp({ logger: log.logger, api, ...options }), log };
}
