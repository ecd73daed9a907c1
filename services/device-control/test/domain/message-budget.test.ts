import { createLogger, ManualClock } from '@homeops/common';
import { drainEventLoop, eventually } from '@homeops/test-kit';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
afterEach(async () => {
  await t?.close();
});

const put = (on: boolean, uuid = 'plug-1') => request(t.app).put(`/devices/${uuid}/channels/0`).send({ on });

describe('account message budget', () => {
  it('answers 429 with Retry-After past the burst window and sends nothing to the cloud', async () => {
    const clock = new ManualClock();
    // The startup sync is the first message of the minute.
    t = await buildTestApp({ clock, service: { maxMessagesPerMinute: 3 } });
    for (const on of [true, false]) {
      expect((await put(on)).status).toBe(200);
      clock.advance(10_000);
    }

    const res = await put(true, 'strip-1');

    expect(res.status).toBe(429);
    expect(res.body.error).toContain('3 messages per minute for the whole account');
    expect(res.headers['retry-after']).toBe('40');
    expect(t.cloud.callsOf('setChannel')).toHaveLength(2);
  });

  it('answers 429 past the hourly window even when the burst window has room', async () => {
    const clock = new ManualClock();
    t = await buildTestApp({ clock, service: { maxMessagesPerMinute: 10, maxMessagesPerHour: 4 } });
    for (const on of [true, false, true]) {
      expect((await put(on)).status).toBe(200);
      clock.advance(5 * 60_000);
    }

    const res = await put(false);

    expect(res.status).toBe(429);
    expect(res.body.error).toContain('4 messages per hour');
    // The startup sync at minute 0 leaves the window at minute 60: 45 minutes from now.
    expect(res.headers['retry-after']).toBe(String(45 * 60));
  });

  it('frees room as the sliding window moves on', async () => {
    const clock = new ManualClock();
    t = await buildTestApp({ clock, service: { maxMessagesPerMinute: 2 } });
    await put(true);
    expect((await put(false)).status).toBe(429);

    clock.advance(60_000);

    expect((await put(false)).status).toBe(200);
  });

  it('counts the state read of a toggle: a toggle that needs two messages and has room for one sends neither', async () => {
    t = await buildTestApp({ service: { maxMessagesPerMinute: 2 } });

    const res = await request(t.app).post('/devices/plug-1/toggle').send({});

    expect(res.status).toBe(429);
    expect(t.cloud.callsOf('readChannels')).toHaveLength(0);
    expect(t.cloud.callsOf('setChannel')).toHaveLength(0);
  });

  it('costs nothing when the session was down and nothing reached the cloud', async () => {
    t = await buildTestApp({ service: { maxMessagesPerMinute: 2 } });
    t.cloud.failNext('setChannel', 'unavailable');

    const refused = await put(true);
    const retried = await put(true);

    expect(refused.status).toBe(503);
    expect(retried.status).toBe(200);
  });

  it('counts a command that timed out: it may have reached the device', async () => {
    t = await buildTestApp({ service: { maxMessagesPerMinute: 3 } });
    t.cloud.failNext('setChannel', 'timeout');

    expect((await put(true)).status).toBe(504);

    expect(t.devices.health().budget.windows.find((w) => w.window === 'burst')?.used).toBe(2);
  });

  it('holds room for a command waiting in its queue and gives it back when the device went offline meanwhile', async () => {
    t = await buildTestApp({ service: { maxMessagesPerMinute: 4, commandTimeoutMs: 5000 } });
    t.cloud.holdCommands();
    const first = put(true).then((r) => r);
    await eventually(() => t.cloud.heldCount === 1, 'the first command held');
    const queued = put(false).then((r) => r);
    // The sync, the first command (sent, and admitted until it finishes) and the queued one.
    await eventually(() => t.devices.health().commands.usedLastMinute === 4, 'four messages used');
    expect((await put(true, 'strip-1')).status).toBe(429);

    t.cloud.setOnline('plug-1', false);
    t.cloud.releaseAll();

    expect((await first).status).toBe(200);
    expect((await queued).status).toBe(409);
    expect(t.devices.health().commands.usedLastMinute).toBe(2);
    expect(t.cloud.callsOf('setChannel')).toHaveLength(1);
  });

  it('counts every sync, and a manual sync past the budget gets 429', async () => {
    t = await buildTestApp({ service: { maxMessagesPerMinute: 2 } });

    expect((await request(t.app).post('/devices/sync')).status).toBe(200);
    const refused = await request(t.app).post('/devices/sync');

    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBeDefined();
    expect(t.cloud.callsOf('listDevices')).toHaveLength(2);
  });

  it('skips a periodic sync that would spend the share kept for callers, and a caller still gets through', async () => {
    const clock = new ManualClock();
    const lines: string[] = [];
    const logger = createLogger({ service: 'test', level: 'info', destination: { write: (line: string) => lines.push(line) } });
    t = await buildTestApp({ clock, logger, service: { maxMessagesPerMinute: 4, syncIntervalSeconds: 0.05 } });
    // The startup sync and one caller command: 2 of 4 used, and the last 2 are kept for callers.
    await put(true);
    const syncs = t.cloud.callsOf('listDevices').length;
    const skipped = () => lines.filter((line) => line.includes('device sync skipped')).length;

    // Six periodic turns.
    clock.advance(300);
    await eventually(() => skipped() === 6, 'six periodic syncs skipped');
    await drainEventLoop();

    expect(skipped()).toBe(6);
    expect(t.cloud.callsOf('listDevices')).toHaveLength(syncs);
    expect((await put(false)).status).toBe(200);
    expect((await put(true)).status).toBe(200);
    expect((await put(false)).status).toBe(429);
  });

  it("records every message the cloud announces as sent, including the session's own (logins)", async () => {
    t = await buildTestApp({ service: { maxMessagesPerMinute: 3 } });
    t.cloud.emit({ type: 'sent', via: 'api', what: 'login' });
    t.cloud.emit({ type: 'sent', via: 'api', what: 'device list' });

    const res = await put(true);

    expect(res.status).toBe(429);
    expect(t.devices.health().budget.sent).toEqual({ api: 3, mqtt: 0, lan: 0 });
  });

  it('shows use and remaining budget per window in /health', async () => {
    t = await buildTestApp({ service: { maxMessagesPerMinute: 5, maxMessagesPerHour: 100 } });
    await put(true);

    const res = await request(t.app).get('/health');

    expect(res.body.budget).toEqual({
      windows: [
        { window: 'hour', seconds: 3600, limit: 100, used: 2, remaining: 98, reservedForCallers: 50 },
        { window: 'burst', seconds: 60, limit: 5, used: 2, remaining: 3, reservedForCallers: 3 },
      ],
      sent: { api: 1, mqtt: 1, lan: 0 },
    });
    expect(res.body.commands).toEqual({ limitPerMinute: 5, usedLastMinute: 2 });
  });
});
