import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { cloudDevice, FakeDeviceCloud } from '../fakes/fake-device-cloud.js';
import { buildTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
afterEach(async () => {
  await t?.close();
});

describe('GET /health', () => {
  it('reports version 1.0.1, the backend, the session, the last sync and device counts', async () => {
    t = await buildTestApp();

    const res = await request(t.app).get('/health');

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'degraded',
      service: 'device-control',
      version: '1.0.1',
      backend: 'meross',
      cloud: { state: 'connected', lastError: null, retryAt: null },
      sync: { ok: true, error: null, lastResult: { total: 5, added: 5, removed: 0, updated: 0 } },
      devices: { total: 5, online: 4, controllable: 2, awaitingCommandChannel: 1 },
      eventStreams: 0,
    });
    expect(res.body.sync.lastAt).toEqual(expect.any(String));
    expect(res.body.uptimeSeconds).toEqual(expect.any(Number));
  });

  it('is ok when the session is up, the last sync succeeded and every online switch has its command channel', async () => {
    t = await buildTestApp({ cloud: new FakeDeviceCloud([cloudDevice({ uuid: 'a' }), cloudDevice({ uuid: 'b', online: false })]) });

    const res = await request(t.app).get('/health');

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok', problems: [] });
  });

  it('is degraded while the command channels are down although the session is connected (broker outage)', async () => {
    t = await buildTestApp({ cloud: new FakeDeviceCloud([cloudDevice({ uuid: 'a' })]) });

    t.cloud.emit({ type: 'device', device: cloudDevice({ uuid: 'a', commandReady: false }) });
    const res = await request(t.app).get('/health');

    expect(res.body).toMatchObject({
      status: 'degraded',
      cloud: { state: 'connected' },
      devices: { online: 1, controllable: 0, awaitingCommandChannel: 1 },
    });
  });

  it('is 200 and degraded, naming the file and the error, when the session token cannot be saved', async () => {
    const cloud = new FakeDeviceCloud([cloudDevice({ uuid: 'a' })]);
    const tokenStore = { file: '/app/data/cloud-token.json', writable: false, error: 'EACCES: permission denied', savedAt: null };
    cloud.tokenStore = tokenStore;
    t = await buildTestApp({ cloud });

    const res = await request(t.app).get('/health');

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'degraded', cloud: { state: 'connected', tokenStore } });
    expect(res.body.problems).toEqual([
      'the session token cannot be saved to /app/data/cloud-token.json (EACCES: permission denied); every restart logs in again, which can lock the account',
    ]);
  });

  it('is 200 and degraded while the session backs off, with the last error and the retry time', async () => {
    t = await buildTestApp();
    const lastError = { code: 1301, message: 'Too many tokens: waiting before the next login', at: '2026-01-01T00:00:00.000Z' };
    t.cloud.setSession('backing-off', { lastError, retryAt: '2026-01-01T01:00:00.000Z' });

    const res = await request(t.app).get('/health');

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'degraded',
      cloud: { state: 'backing-off', lastError, retryAt: '2026-01-01T01:00:00.000Z' },
    });
  });

  it('shows a failed last sync as degraded', async () => {
    t = await buildTestApp();
    t.cloud.failNext('listDevices', 'cloud-error');
    await request(t.app).post('/devices/sync');

    const res = await request(t.app).get('/health');

    expect(res.body.status).toBe('degraded');
    expect(res.body.sync).toMatchObject({ ok: false, error: 'The cloud answered with error 5000: device busy' });
    expect(res.body.sync.lastSuccessAt).toEqual(expect.any(String));
  });

  it('is 503 once the cloud session failed for good', async () => {
    t = await buildTestApp();
    t.cloud.setSession('failed', { lastError: { code: 1005, message: 'Wrong e-mail or password', at: '2026-01-01T00:00:00.000Z' } });

    const res = await request(t.app).get('/health');

    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ status: 'error', cloud: { state: 'failed' } });
  });

  it('names the simulator backend', async () => {
    t = await buildTestApp({ cloud: new FakeDeviceCloud([], 'simulator') });

    const res = await request(t.app).get('/health');

    expect(res.body.backend).toBe('simulator');
  });
});
