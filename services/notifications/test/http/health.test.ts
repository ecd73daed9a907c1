import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { FakePushProvider, retryable } from '../fakes/fake-push.provider.js';
import { InMemoryNotificationRepository } from '../fakes/in-memory-notification.repository.js';
import { buildTestApp, testStorage } from '../support/test-app.js';

describe('GET /health', () => {
  it('reports ok, the version 0.0.7, storage, provider and process diagnostics', async () => {
    // The real store: its engine, path and size are what /health reports.
    const t = await buildTestApp({ repository: 'real' });
    await request(t.app).post('/notifications').send({ recipient: 'ops', message: 'm' });
    const res = await request(t.app).get('/health');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'ok',
      service: 'notifications',
      version: '0.0.7',
      uptimeSeconds: expect.any(Number),
      problems: [],
      storage: {
        engine: testStorage,
        path: testStorage === 'yaml' ? t.storagePath : expect.stringMatching(/^postgres:\/\/127\.0\.0\.1:\d+\/\w+$/),
        writable: true,
        records: 1,
        fileBytes: expect.any(Number),
        lastWriteAt: expect.any(String),
        lastError: null,
      },
      provider: { enabled: true, lastSuccessAt: expect.any(String), lastError: null, retriesScheduled: 0 },
      streams: 0,
      process: { pid: process.pid, node: process.version, memory: { rssBytes: expect.any(Number) }, loadAverage: expect.any(Array) },
    });
  });

  it('says degraded, and why, when delivery is off', async () => {
    const res = await request((await buildTestApp({ provider: new FakePushProvider(false) })).app).get('/health');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('degraded');
    expect(res.body.provider.enabled).toBe(false);
    expect(res.body.problems).toEqual([expect.stringMatching(/delivery is off/)]);
  });

  it('says degraded when the last delivery failed and shows the quota', async () => {
    const provider = new FakePushProvider().willAnswer(retryable());
    provider.quota = { limit: 10000, remaining: 0, resetAt: '2026-12-01T00:00:00.000Z' };
    const t = await buildTestApp({ provider, config: { DELIVERY_RETRY_MIN_MS: 60_000 } });
    await request(t.app).post('/notifications').send({ recipient: 'ops', message: 'm' });
    const res = await request(t.app).get('/health');
    expect(res.body.status).toBe('degraded');
    expect(res.body.provider).toMatchObject({ quota: { remaining: 0 }, retriesScheduled: 1 });
    expect(res.body.problems).toEqual([expect.stringMatching(/last delivery attempt failed/), expect.stringMatching(/quota/)]);
    await t.delivery.stop();
  });

  it('returns 503 with status error when the history cannot be written', async () => {
    const repository = new InMemoryNotificationRepository();
    const t = await buildTestApp({ repository });
    repository.failWrites = true;
    await request(t.app).post('/notifications').send({ recipient: 'ops', message: 'm' });
    const res = await request(t.app).get('/health');
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ status: 'error', storage: { writable: false, lastError: expect.any(String) } });
  });

  it('is reachable without the API key, while other routes need it', async () => {
    const t = await buildTestApp({ config: { API_KEY: 'k'.repeat(32) } });
    expect((await request(t.app).get('/health')).status).toBe(200);
    expect((await request(t.app).get('/notifications/ops')).status).toBe(401);
    expect((await request(t.app).get('/notifications/ops').set('X-API-Key', 'k'.repeat(32))).status).toBe(200);
  });
});

describe('GET /openapi.json', () => {
  it('documents every route of the service', async () => {
    const res = await request((await buildTestApp()).app).get('/openapi.json');
    expect(Object.keys(res.body.paths).sort()).toEqual([
      '/auth/me',
      '/events',
      '/health',
      '/heartbeats',
      '/heartbeats/{name}',
      '/heartbeats/{name}/ping',
      '/hooks/{template}',
      '/notifications',
      '/notifications/single/{id}',
      '/notifications/single/{id}/attachment',
      '/notifications/{id}',
      '/notifications/{id}/read',
      '/notifications/{id}/resend',
      '/notifications/{id}/unread',
      '/notifications/{recipient}',
      '/notifications/{recipient}/read-all',
      '/notifications/{recipient}/stream',
      '/recipients',
      '/scheduled',
      '/scheduled/{key}',
      '/sounds',
      '/tokens',
      '/tokens/{id}',
      '/tokens/{id}/rotate',
    ]);
    expect(Object.keys(res.body.paths['/notifications'].post.requestBody.content)).toEqual(['application/json', 'multipart/form-data']);
  });
});
