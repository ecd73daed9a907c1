import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { metricValue, parseExposition } from '@homeops/test-kit';
import { SWITCH_COMMAND_LABELS } from '../../src/families/switch/http/switch.metrics.js';
import { buildTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
afterEach(async () => {
  await t?.close();
});

async function scrape(app: TestApp['app']): Promise<string> {
  const res = await request(app).get('/metrics').expect(200);
  return res.text;
}

describe('GET /metrics (device-control)', () => {
  it('counts toggles by result: ok, or the error code', async () => {
    t = await buildTestApp();

    await request(t.app).post('/devices/plug-1/toggle').send({ channel: 0 }).expect(200);
    await request(t.app).post('/devices/plug-1/toggle').send({ channel: 0 }).expect(200);
    const refused = await request(t.app).post('/devices/offline-1/toggle').send({ channel: 0 }).expect(409);
    await request(t.app).put('/devices/plug-1/channels/0').send({ on: true }).expect(200);
    const text = await scrape(t.app);

    expect(metricValue(text, 'homeops_device_toggles_total', { action: 'toggle', result: 'ok' })).toBe(2);
    expect(metricValue(text, 'homeops_device_toggles_total', { action: 'toggle', result: refused.body.code as string })).toBe(1);
    expect(metricValue(text, 'homeops_device_toggles_total', { action: 'set', result: 'ok' })).toBe(1);
    expect(metricValue(text, 'http_requests_total', { method: 'POST', route: '/devices/:uuid/toggle', status: '200' })).toBe(2);
  });

  it('exposes every action and result of the switch commands at 0 before the first command', async () => {
    t = await buildTestApp();

    const text = await scrape(t.app);

    // Every pair of the known sets, built here (not from the code's own expansion) so a missing pair fails.
    const pairs = SWITCH_COMMAND_LABELS.action.flatMap((action) => SWITCH_COMMAND_LABELS.result.map((result) => ({ action, result })));
    expect(pairs.length).toBeGreaterThan(10);
    for (const labels of pairs) expect([labels, metricValue(text, 'homeops_device_toggles_total', labels)]).toEqual([labels, 0]);
    expect(parseExposition(text).filter((s) => s.name === 'homeops_device_toggles_total')).toHaveLength(pairs.length);
  });

  it('shows the budget windows, the messages sent by way, the session and the devices', async () => {
    t = await buildTestApp();
    await request(t.app).post('/devices/plug-1/toggle').send({ channel: 0 }).expect(200);
    const health = t.devices.health();

    const text = await scrape(t.app);

    for (const w of health.budget.windows) {
      expect(metricValue(text, 'homeops_cloud_budget_used', { window: w.window })).toBe(w.used);
      expect(metricValue(text, 'homeops_cloud_budget_limit', { window: w.window })).toBe(w.limit);
    }
    expect(metricValue(text, 'homeops_cloud_messages_sent_total', { via: 'mqtt' })).toBe(health.budget.sent.mqtt);
    expect(metricValue(text, 'homeops_cloud_messages_sent_total', { via: 'lan' })).toBe(0);
    expect(metricValue(text, 'homeops_cloud_session_state', { state: 'connected' })).toBe(1);
    expect(metricValue(text, 'homeops_cloud_session_state')).toBe(1);
    expect(metricValue(text, 'homeops_cloud_lockout_seconds')).toBe(0);
    expect(metricValue(text, 'homeops_devices', { state: 'total' })).toBe(health.devices.total);
    expect(metricValue(text, 'homeops_devices', { state: 'online' })).toBe(health.devices.online);
  });

  it('declares each family with its type and keeps device uuids out of every label', async () => {
    t = await buildTestApp();
    await request(t.app).get('/devices/plug-1').expect(200);
    await request(t.app).post('/devices/strip-1/toggle').send({ channel: 1 }).expect(200);

    const text = await scrape(t.app);

    expect(text).toContain('# TYPE homeops_device_toggles_total counter');
    expect(text).toContain('# TYPE homeops_cloud_messages_sent_total counter');
    expect(text).toContain('# TYPE homeops_cloud_budget_used gauge');
    expect(text).toContain('# TYPE http_request_duration_seconds histogram');
    const labelValues = parseExposition(text).flatMap((s) => Object.values(s.labels));
    expect(labelValues.filter((v) => /plug-1|strip-1/.test(v))).toEqual([]);
    expect(labelValues).toContain('/devices/:uuid');
  });

  it('is refused without the key when one is set', async () => {
    const key = 'a'.repeat(40);
    t = await buildTestApp({ apiKey: key });

    const refused = await request(t.app).get('/metrics').expect(401);
    await request(t.app).get('/metrics').set('X-API-Key', key).expect(200);

    expect(refused.body).toMatchObject({ code: 'UNAUTHORIZED' });
  });
});
