import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import request from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';
import { Api, createHttpApp } from '../src/index.js';
import { captureLogger } from './helpers.js';

const built = mkdtempSync(join(tmpdir(), 'dashboard-'));
mkdirSync(join(built, 'assets'));
writeFileSync(join(built, 'index.html'), '<!doctype html><title>dash</title><script type="module" src="/assets/app-Ab12.js"></script>');
writeFileSync(join(built, 'assets/app-Ab12.js'), 'console.log(1)');
afterAll(() => rmSync(built, { recursive: true, force: true }));

function appWith(dashboard: string | URL, apiKey?: string) {
  const api = new Api({ title: 'test', version: '1.0.0' });
  api.route({
    method: 'get',
    path: '/things',
    summary: 'things',
    access: 'admin',
    responses: { 200: { description: 'ok' } },
    handler: (_i, _q, res) => void res.json([]),
  });
  return createHttpApp({ logger: captureLogger().logger, api, apiKey, dashboard });
}

describe('the dashboard', () => {
  it('serves the page (revalidated) and the hashed assets (a year, immutable) without the API key; the API keeps it', async () => {
    const app = appWith(built, 'secret-key');

    const page = await request(app).get('/');
    const asset = await request(app).get('/assets/app-Ab12.js');
    const api = await request(app).get('/things');

    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(asset.status).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(api.status).toBe(401);
  });

  it('takes the folder as a file URL too, as the services give it', async () => {
    const app = appWith(pathToFileURL(built));

    expect((await request(app).get('/')).text).toContain('<title>dash</title>');
    expect((await request(app).get('/assets/app-Ab12.js')).status).toBe(200);
  });

  it('works over plain HTTP from the LAN: scripts from self only, blob images, no upgrade-insecure-requests', async () => {
    const csp = (await request(appWith(built)).get('/')).headers['content-security-policy'] as string;

    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("img-src 'self' data: blob:");
    expect(csp).not.toContain('upgrade-insecure-requests');
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
  });

  it('answers a missing asset and an unbuilt dashboard with the common error body, never an HTML page', async () => {
    const missing = await request(appWith(built)).get('/assets/gone-Zz99.js');
    const unbuilt = await request(appWith(join(built, 'nothing-here'))).get('/');

    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ error: expect.any(String), solution: expect.any(String) });
    expect(unbuilt.status).toBe(404);
    expect(unbuilt.body).toEqual({ error: 'The dashboard is not built', solution: expect.stringContaining('pnpm build'), code: 'ROUTE_NOT_FOUND' });
  });
});
