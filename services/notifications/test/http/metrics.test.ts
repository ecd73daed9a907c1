import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '@homeops/common';
import { eventually, metricValue, parseExposition } from '@homeops/test-kit';
import type { Express } from 'express';
import { parseRecipientsVariable } from '../../src/adapters/pushover/recipient-map.js';
import { ATTEMPT_LABELS, DELIVERY_LABELS } from '../../src/http/notification.metrics.js';
import { FakePushProvider, permanent } from '../fakes/fake-push.provider.js';
import { startFakePushoverApi } from '../pushover/fake-pushover-api.js';
import { startHouseholdApp } from '../pushover/household-kit.js';
import { API_TOKEN, USER_KEY } from '../pushover/pushover-test-kit.js';
import { buildTestApp, testStorage } from '../support/test-app.js';

const create = (app: Express, recipient = 'ops') => request(app).post('/notifications').send({ recipient, title: 'Disk', message: 'Disk almost full' });

async function scrape(app: Express): Promise<string> {
  return (await request(app).get('/metrics').expect(200)).text;
}

const OPS = 'oPs000000000000000000000000001';
const hookFixture = (name: string) => JSON.parse(readFileSync(join(import.meta.dirname, '../fixtures/hooks', `${name}.json`), 'utf8')) as object;

let closeFake: (() => Promise<void>) | undefined;
afterEach(async () => closeFake?.());

describe('GET /metrics (notifications)', () => {
  it('exposes every delivery status and attempt outcome at 0 before the first notification', async () => {
    const { app } = await buildTestApp();

    const text = await scrape(app);

    for (const status of DELIVERY_LABELS.status) expect([status, metricValue(text, 'homeops_deliveries_total', { status })]).toEqual([status, 0]);
    for (const outcome of ATTEMPT_LABELS.outcome) {
      expect([outcome, metricValue(text, 'homeops_delivery_attempt_seconds_count', { outcome })]).toEqual([outcome, 0]);
      expect([outcome, metricValue(text, 'homeops_delivery_attempt_seconds_bucket', { outcome, le: '+Inf' })]).toEqual([outcome, 0]);
    }
    const series = (name: string) => parseExposition(text).filter((s) => s.name === name);
    expect(series('homeops_deliveries_total')).toHaveLength(DELIVERY_LABELS.status.length);
    expect(series('homeops_delivery_attempt_seconds_count')).toHaveLength(ATTEMPT_LABELS.outcome.length);
    expect(metricValue(text, 'homeops_notifications_created_total')).toBe(0);
  });

  it('drops a ringing emergency from the gauge as soon as its alert resolves, without waiting for a poll', async () => {
    const fake = await startFakePushoverApi({ token: API_TOKEN, users: { [USER_KEY]: [], [OPS]: ['phone'] } });
    closeFake = fake.close;
    const clock = new ManualClock();
    const recipients = { recipients: parseRecipientsVariable(`ops=${OPS}`), unmapped: 'default' as const };
    const { app } = await startHouseholdApp(fake.url, { userKey: USER_KEY, recipients }, { clock, config: { EMERGENCY_POLL_SECONDS: 20 } });
    const firing = await request(app).post('/hooks/alertmanager?recipient=ops').send(hookFixture('alertmanager-firing')).expect(201);
    const [id] = firing.body.created as string[];
    await eventually(async () => metricValue(await scrape(app), 'homeops_emergencies_ringing') === 1, `the alarm ${id} being followed`);

    // The clock stands still: no poll runs, only the resolve's own cancel can end it.
    await request(app).post('/hooks/alertmanager?recipient=ops').send(hookFixture('alertmanager-resolved')).expect(200);
    const text = await scrape(app);

    expect(metricValue(text, 'homeops_emergencies_ringing')).toBe(0);
    expect(fake.count('cancel')).toBe(1);
    expect(fake.count('receipt')).toBe(0);
  });

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
    // The real store: the history's byte count is what it measures.
    const { app } = await buildTestApp({ provider, repository: 'real' });
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
