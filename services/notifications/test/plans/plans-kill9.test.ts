import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, ServiceProcess } from '@homeops/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakePushoverApi } from '../pushover/fake-pushover-api.js';
import { API_TOKEN, USER_KEY } from '../pushover/pushover-test-kit.js';

// The service as users run it: a scheduled send and a heartbeat acknowledged, then `kill -9`; after a restart each
// goes out exactly once at the fake Pushover.
const OPS = 'oPs000000000000000000000000001';
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('plans across kill -9', () => {
  it('sends a scheduled notification and a missed heartbeat once after a restart', { timeout: 60_000 }, async () => {
    const fake = await startFakePushoverApi({ token: API_TOKEN, users: { [USER_KEY]: [], [OPS]: ['phone'] } });
    cleanups.push(() => fake.close());
    const dir = mkdtempSync(join(tmpdir(), 'plans-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const env = {
      STORAGE_PATH: join(dir, 'notifications.yaml'),
      PROVIDER_USER_KEY: USER_KEY,
      PROVIDER_API_TOKEN: API_TOKEN,
      PROVIDER_API_URL: fake.url,
      RECIPIENTS: `ops=${OPS}`,
    };
    const first = await ServiceProcess.start({ service: 'notifications', env, cwd: dir });
    const json = { 'content-type': 'application/json' };
    const scheduled = await fetch(`${first.baseUrl}/scheduled/reminder`, {
      method: 'PUT',
      headers: json,
      body: JSON.stringify({ recipient: 'ops', message: 'Take the bins out', delaySeconds: 2 }),
    });
    const heartbeat = await fetch(`${first.baseUrl}/heartbeats/cron`, {
      method: 'PUT',
      headers: json,
      body: JSON.stringify({ intervalSeconds: 10, notification: { recipient: 'ops', message: 'cron stopped' } }),
    });
    expect([scheduled.status, heartbeat.status]).toEqual([200, 200]);
    await first.kill();
    expect(fake.count('messages')).toBe(0);

    const second = await ServiceProcess.start({ service: 'notifications', env, cwd: dir });
    cleanups.push(async () => void (await second.stop()));
    await eventually(async () => ((await (await fetch(`${second.baseUrl}/scheduled`)).json()) as { scheduled: unknown[] }).scheduled.length === 0, {
      what: 'the scheduled send to go out',
      timeoutMs: 20_000,
    });
    await eventually(
      async () => ((await (await fetch(`${second.baseUrl}/heartbeats`)).json()) as { heartbeats: Array<{ state: string }> }).heartbeats[0]?.state === 'down',
      { what: 'the heartbeat to be missed', timeoutMs: 30_000 },
    );
    await eventually(() => fake.count('messages') === 2, { what: 'both notifications at Pushover', timeoutMs: 10_000 });
    expect(
      fake.calls
        .filter((c) => c.endpoint === 'messages')
        .map((c) => c.fields.message)
        .sort(),
    ).toEqual(['Take the bins out', 'cron stopped']);
  });
});
