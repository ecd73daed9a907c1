import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { Api, AppMetrics, createHttpApp } from '../src/index.js';
import { captureLogger } from './helpers.js';
import { buildTestApp, MAKE_THING } from './test-app.js';

const KEY = 'k'.repeat(40);

function buildApp(options: { apiKey?: string; metrics?: AppMetrics } = {}) {
  const metrics = options.metrics ?? new AppMetrics();
  const { app } = buildTestApp({
    apiKey: options.apiKey,
    metrics,
    routes: (api) =>
      api.route({
        ...MAKE_THING,
        responses: { 201: { description: 'made' } },
        handler: ({ params }, _req, res) => void res.status(201).json({ id: params.id }),
      }),
  });
  return { app, metrics };
}

/** The value of one sample line, e.g. `http_requests_total{method="GET",route="/health",status="200"}`. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const match = /^[^{ ]+(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const found = Object.fromEntries([...(match[1] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(match[2]);
  }
  return undefined;
}

describe('GET /metrics', () => {
  it('counts requests by route template and status, never by raw URL', async () => {
    const { app } = buildApp();
    await request(app).post('/things/17').expect(201);
    await request(app).post('/things/18').expect(201);
    await request(app).post('/things/abc').expect(400);
    await request(app).get('/no/such/path/12345').expect(404);

    const res = await request(app).get('/metrics').expect(200);

    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(sample(res.text, 'http_requests_total', { method: 'POST', route: '/things/:id', status: '201' })).toBe(2);
    expect(sample(res.text, 'http_requests_total', { method: 'POST', route: '/things/:id', status: '400' })).toBe(1);
    expect(sample(res.text, 'http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    expect(sample(res.text, 'http_request_duration_seconds_count', { method: 'POST', route: '/things/:id' })).toBe(3);
    expect(res.text).not.toMatch(/things\/17|12345/);
  });

  it('has the process metrics and one HELP and TYPE line per family', async () => {
    const { app } = buildApp();
    const res = await request(app).get('/metrics').expect(200);

    expect(res.text).toContain('# TYPE process_cpu_user_seconds_total counter');
    expect(res.text).toContain('# TYPE nodejs_eventloop_lag_seconds gauge');
    expect(res.text).toContain('# TYPE http_request_duration_seconds histogram');
    const types = res.text.split('\n').filter((line) => line.startsWith('# TYPE '));
    expect(new Set(types).size).toBe(types.length);
  });

  it('starts every combination of known label values at 0, a counter and a histogram alike', async () => {
    const metrics = new AppMetrics();
    metrics.counter({ name: 'doors_total', help: 'doors', labelNames: ['door', 'result'] }, { door: ['front', 'garage'], result: ['ok', 'jammed', 'offline'] });
    metrics.histogram({ name: 'door_seconds', help: 'door time', labelNames: ['door'], buckets: [1] }, { door: ['front', 'garage'] });

    const text = await metrics.exposition();

    for (const door of ['front', 'garage']) {
      for (const result of ['ok', 'jammed', 'offline']) expect([door, result, sample(text, 'doors_total', { door, result })]).toEqual([door, result, 0]);
      expect(sample(text, 'door_seconds_count', { door })).toBe(0);
      expect(sample(text, 'door_seconds_bucket', { door, le: '1' })).toBe(0);
    }
    expect(text.split('\n').filter((line) => line.startsWith('doors_total{'))).toHaveLength(6);
  });

  it('keeps each app in its own registry', async () => {
    const first = buildApp();
    const second = buildApp();
    await request(first.app).get('/health').expect(200);

    const res = await request(second.app).get('/metrics').expect(200);

    expect(sample(res.text, 'http_requests_total', { route: '/health' })).toBeUndefined();
  });

  it('returns 401 with the error body without the key when one is set', async () => {
    const { app } = buildApp({ apiKey: KEY });

    const refused = await request(app).get('/metrics').expect(401);
    const served = await request(app).get('/metrics').set('Authorization', `Bearer ${KEY}`).expect(200);

    expect(refused.body).toMatchObject({ code: 'UNAUTHORIZED', error: expect.any(String), solution: expect.any(String) });
    expect(served.text).toContain('http_requests_total');
  });

  it('loads prom-client only with the first AppMetrics, so a service with METRICS=off never loads it', () => {
    const index = fileURLToPath(new URL('../src/index.ts', import.meta.url));
    const script = [
      "const { createRequire } = await import('node:module');",
      `const common = await import(${JSON.stringify(index)});`,
      "const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes('prom-client'));",
      'const before = loaded();',
      'new common.AppMetrics();',
      'console.log(JSON.stringify([before, loaded()]));',
    ].join('\n');

    const output = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });

    expect(JSON.parse(output.trim().split('\n').at(-1)!)).toEqual([false, true]);
  });

  it('is not served without metrics', async () => {
    const { logger } = captureLogger();
    const app = createHttpApp({ logger, api: new Api({ title: 'test', version: '1.0.0' }) });

    await request(app).get('/metrics').expect(404);
  });
});
