import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { metricValue, parseExposition } from '@homeops/test-kit';
import type { Express } from 'express';
import { FakePushProvider, permanent } from '../fakes/fake-push.provider.js';
import { buildTestApp, testStorage } from '../support/test-app.js';

const create = (app: Express, recipient = 'ops') => request(app).post('/notifications').send({ recipient, title: 'Disk', message: 'Disk almost full' });

async function scrape(app: Express): Promise<string> {
  return (await request(app).get('/metrics').expect(200)).text;
}

describe('GET /metrics (notifications)', () => {
  it('counts creates and deliveries by final status, and times each attempt', async () => {
    const provider = new FakePushProvider().willAnswer({ request: 'r1' }, permanent());
    const { app } = await buildTestApp({ provider });

    await create(app).expect(201);
    await create(app).expect(201);
    const text = await scrape(app);

    expect(metricValue(text, 'homeops_notifications_created_total')).toBe(2);
    expect(metricValue(text, 'homeops_deliveries_total', { status: 'sent' })).toBe(1);
    expect(metricValue(text, 'homeops_deliveries_total', { status: 'failed' })).toBe(1);
    expect(metricValue(text, 'homeops_delivery_attempt_seconds_count')).toBe(2);
    expect(metricValue(text, 'http_requests_total', { method: 'POST', route: '/notifications', status: '201' })).toBe(2);
  });

  it('counts a create while delivery is off as skipped', async () => {
    const { app } = await buildTestApp({ provider: new FakePushProvider(false) });

    await create(app).expect(201);
    const text = await scrape(app);

    expect(metricValue(text, 'homeops_deliveries_total', { status: 'skipped' })).toBe(1);
    expect(metricValue(text, 'homeops_delivery_enabled')).toBe(0);
  });

  it('shows the quota, the circuit, the ringing emergencies and the history', async () => {
    const provider = new FakePushProvider();
    provider.quota = { limit: 10_000, remaining: 9_876, resetAt: '2026-12-01T00:00:00.000Z' };
    const { app } = await buildTestApp({ provider });
    await create(app).expect(201);

    const text = await scrape(app);

    expect(metricValue(text, 'homeops_pushover_quota_remaining')).toBe(9_876);
    expect(metricValue(text, 'homeops_pushover_quota_limit')).toBe(10_000);
    expect(metricValue(text, 'homeops_pushover_quota_reset_timestamp_seconds')).toBe(Date.parse('2026-12-01T00:00:00.000Z') / 1000);
    expect(metricValue(text, 'homeops_pushover_circuit_open')).toBe(0);
    expect(metricValue(text, 'homeops_emergencies_ringing')).toBe(0);
    expect(metricValue(text, 'homeops_history_notifications')).toBe(1);
    expect(metricValue(text, 'homeops_history_bytes')).toBeGreaterThan(0);
    if (testStorage === 'postgres') expect(metricValue(text, 'homeops_pg_pool_connections', { state: 'total' })).toBeGreaterThan(0);
    else expect(metricValue(text, 'homeops_pg_pool_connections')).toBeUndefined();
  });

  it('names no recipient in any label', async () => {
    const { app } = await buildTestApp();
    await create(app, 'alice').expect(201);
    await request(app).get('/notifications/alice').expect(200);

    const text = await scrape(app);

    const labelValues = parseExposition(text).flatMap((s) => Object.values(s.labels));
    expect(labelValues.filter((v) => v.includes('alice'))).toEqual([]);
    expect(labelValues).toContain('/notifications/:recipient');
    expect(text).toContain('# TYPE homeops_deliveries_total counter');
    expect(text).toContain('# TYPE homeops_delivery_attempt_seconds histogram');
  });

  it('is absent with METRICS=off', async () => {
    const { app } = await buildTestApp({ config: { METRICS: 'off' } });

    await request(app).get('/metrics').expect(404);
  });
});
