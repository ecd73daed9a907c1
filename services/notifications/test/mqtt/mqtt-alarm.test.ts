import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig, type Config } from '../../src/config.js';
import { startNotifications } from '../../src/compose.js';
import { startFakePushoverApi } from '../pushover/fake-pushover-api.js';
import { API_TOKEN, USER_KEY } from '../pushover/pushover-test-kit.js';
import { silentLogger } from '../support/test-app.js';
import { afterTest, homeAssistant, startBroker, topicsOf } from './mqtt-harness.js';

const ALICE = 'aLiCe0000000000000000000000001';
const alarm = { recipient: 'alice', title: 'Smoke', message: 'Smoke in the kitchen', priority: 2 };

/** The service as main wires it (startNotifications) in this process, so the receipt poll can be 50 ms. */
async function startWithPushover(mqttUrl: string, pushoverUrl: string) {
  const dir = await mkdtemp(join(tmpdir(), 'notifications-mqtt-'));
  afterTest(() => rm(dir, { recursive: true, force: true }));
  const parsed = parseConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    STORAGE_PATH: join(dir, 'notifications.yaml'),
    PROVIDER_USER_KEY: USER_KEY,
    PROVIDER_API_TOKEN: API_TOKEN,
    PROVIDER_API_URL: pushoverUrl,
    RECIPIENTS: `alice=${ALICE}`,
    MQTT_URL: mqttUrl,
  });
  // EMERGENCY_POLL_SECONDS is at least 5 in the environment (Pushover's rule); the typed config lets a test go faster.
  const config: Config = { ...parsed, EMERGENCY_POLL_SECONDS: 0.05 };
  const service = await startNotifications(config, { logger: silentLogger }, { handleSignals: false });
  afterTest(() => service.stop());
  return { base: `http://127.0.0.1:${service.port}` };
}

const post = (base: string, body: object) =>
  fetch(`${base}/notifications`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(
    async (res) => (await res.json()) as { id: string; delivery: { receipt?: string } },
  );

describe("the notifications bridge's alarm event", () => {
  it('publishes who acknowledged an emergency at Pushover and when, and how a cancelled one ended', { timeout: 30_000 }, async () => {
    const pushover = await startFakePushoverApi({ token: API_TOKEN, users: { [USER_KEY]: [], [ALICE]: ['iphone'] } });
    afterTest(() => pushover.close());
    const broker = await startBroker();
    const ha = await homeAssistant(broker);
    // The recipient map names alice: no MQTT_RECIPIENTS needed.
    const { base } = await startWithPushover(broker.url, pushover.url);
    const topic = topicsOf('alice').alarm;
    await ha.waitFor(topicsOf('alice').unread);

    const acknowledged = await post(base, alarm);
    pushover.acknowledge(acknowledged.delivery.receipt!, ALICE, 'iphone');
    const ack = JSON.parse((await ha.waitFor(topic, (m) => m.payload.includes('"acknowledged"'))).payload) as Record<string, unknown>;

    const cancelled = await post(base, { ...alarm, title: 'Leak' });
    await fetch(`${base}/notifications/${cancelled.id}/read`, { method: 'PATCH' });
    const ended = JSON.parse((await ha.waitFor(topic, (m) => m.payload.includes('"alarm-ended"'))).payload) as Record<string, unknown>;

    expect(ack).toEqual({
      event_type: 'acknowledged',
      id: acknowledged.id,
      title: 'Smoke',
      message: 'Smoke in the kitchen',
      acknowledged_by: 'alice',
      acknowledged_by_device: 'iphone',
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(ended).toMatchObject({ event_type: 'alarm-ended', id: cancelled.id, title: 'Leak', ended: 'cancelled', at: expect.any(String) });
    expect(ha.on(topic).every((m) => !m.retain)).toBe(true);
    expect(JSON.stringify(ha.messages)).not.toContain(ALICE);
    // Both alarms ended read; the sensor (read at most every UNREAD_INTERVAL_MS) may never have shown them unread.
    await ha.waitFor(topicsOf('alice').unread, (m) => m.payload === '0');
  });
});
