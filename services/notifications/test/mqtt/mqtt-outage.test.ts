import { describe, expect, it } from 'vitest';
import { assertNoSlower, MqttRecorder, Timing, type ServiceProcess } from '@homeops/test-kit';
import {
  afterTest,
  bridgeState,
  configTopic,
  DEVICE_ALICE,
  health,
  homeAssistant,
  postNotification,
  startBridgedService,
  startBroker,
  topicsOf,
  PREFIX,
  BASE,
} from './mqtt-harness.js';

const CREATES = 50;

/** How long `CREATES` creates take one after another, each answered 201. */
function timeCreates(service: ServiceProcess, label: string): Promise<Timing> {
  return Timing.of(async () => {
    for (let i = 0; i < CREATES; i++) {
      const res = await postNotification(service, { recipient: 'alice', message: `${label} ${i}` });
      expect(res.status).toBe(201);
    }
  });
}

describe('the notifications bridge when the broker goes away', () => {
  it('never slows POST /notifications, shows the outage in /health, and recovers and republishes by itself', { timeout: 60_000 }, async () => {
    const broker = await startBroker();
    const ha = await homeAssistant(broker);
    const service = await startBridgedService(broker);
    await ha.waitFor(topicsOf('alice').unread);
    await timeCreates(service, 'warm-up');

    const withBroker = await timeCreates(service, 'up');
    await broker.stop();
    const down = await bridgeState(service, 'disconnected');
    const withoutBroker = await timeCreates(service, 'down');

    // Side by side on the same service: the outage adds nothing a client can feel (2x leaves room for a busy machine).
    assertNoSlower(`${CREATES} creates without the broker`, withoutBroker, withBroker, { factor: 2, slackMs: 250 });
    expect(down.status).toBe('degraded');
    expect(down.problems).toEqual(expect.arrayContaining([expect.stringContaining(`the MQTT broker mqtt://127.0.0.1:${broker.port} cannot be reached`)]));
    expect(down.mqtt).toMatchObject({
      state: 'disconnected',
      broker: `mqtt://127.0.0.1:${broker.port}`,
      lastError: expect.any(String),
      since: expect.any(String),
    });

    // The broker comes back empty (no persistence): everything it shows again, the bridge published again.
    await broker.run();
    const back = await bridgeState(service, 'connected', 15_000);
    const late = await MqttRecorder.connect(broker.url, [`${PREFIX}/#`, `${BASE}/#`]);
    afterTest(() => late.close());
    await late.waitFor(configTopic(DEVICE_ALICE));
    await late.waitFor(topicsOf('alice').unread, (m) => m.payload === String(3 * CREATES));
    expect(late.last(`${BASE}/availability`)?.payload).toBe('online');
    expect(back.status).toBe('degraded'); // delivery is off in this test; the MQTT problem is gone
    expect((await health(service)).problems).not.toEqual(expect.arrayContaining([expect.stringContaining('MQTT')]));
  });
});
