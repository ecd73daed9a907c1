import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, ServiceProcess } from '@homeops/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakePushoverApi } from '../pushover/fake-pushover-api.js';
import { API_TOKEN, USER_KEY } from '../pushover/pushover-test-kit.js';

// The service as users run it: an escalating emergency sent, then `kill -9` before its first step; after a restart
// each step goes out exactly once, in order, at the fake Pushover. Steps wait 60 s at least, so this test takes a minute.
const OPS = 'oPs000000000000000000000000001';
const BOB = 'b0b000000000000000000000000002';
const FAMILY = 'fAm000000000000000000000000003';
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('escalation across kill -9', () => {
  it('sends every step once after a restart between steps', { timeout: 150_000 }, async () => {
    const fake = await startFakePushoverApi({ token: API_TOKEN, users: { [USER_KEY]: [], [OPS]: ['phone'], [BOB]: ['phone'], [FAMILY]: ['tablet'] } });
    cleanups.push(() => fake.close());
    const dir = mkdtempSync(join(tmpdir(), 'escalation-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const env = {
      STORAGE_PATH: join(dir, 'notifications.yaml'),
      PROVIDER_USER_KEY: USER_KEY,
      PROVIDER_API_TOKEN: API_TOKEN,
      PROVIDER_API_URL: fake.url,
      RECIPIENTS: `ops=${OPS};bob=${BOB};family=${FAMILY}`,
    };
    const messages = () => fake.calls.filter((c) => c.endpoint === 'messages');
    const first = await ServiceProcess.start({ service: 'notifications', env, cwd: dir });
    const created = await fetch(`${first.baseUrl}/notifications`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        recipient: 'ops',
        message: 'Water under the sink',
        priority: 2,
        escalate: [
          { recipient: 'bob', afterSeconds: 60 },
          { recipient: 'family', afterSeconds: 61 },
        ],
      }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    await first.kill();
    expect(messages()).toHaveLength(1);

    const second = await ServiceProcess.start({ service: 'notifications', env, cwd: dir });
    cleanups.push(async () => void (await second.stop()));
    await eventually(() => messages().length === 3, { what: 'both steps at Pushover', timeoutMs: 100_000 });
    // A step sent twice would show within the next rescan.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(messages().map((m) => [m.fields.user, m.fields.tags])).toEqual([
      [OPS, messages()[0]!.fields.tags],
      [BOB, messages()[0]!.fields.tags],
      [FAMILY, messages()[0]!.fields.tags],
    ]);
    const stages = (await (await fetch(`${second.baseUrl}/notifications/family`)).json()) as Array<{ escalation: unknown }>;
    expect(stages.map((s) => s.escalation)).toEqual([{ of: id, step: 2 }]);
  });
});
