import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  bridgeState,
  configTopic,
  DEVICE_ALICE,
  health,
  historyOf,
  homeAssistant,
  postNotification,
  startBridgedService,
  startTlsBroker,
  topicsOf,
} from './mqtt-harness.js';

// The real service and a real Mosquitto TLS listener whose certificate (IP:127.0.0.1) a throwaway CA signed.
describe('the notifications bridge over mqtts://', () => {
  it('connects when MQTT_CA_FILE names the CA that signed the broker certificate', { timeout: 30_000 }, async () => {
    const { broker, caFile } = await startTlsBroker();
    const ha = await homeAssistant(broker, { ca: readFileSync(caFile) });

    const service = await startBridgedService(broker, { MQTT_CA_FILE: caFile });

    const connected = await bridgeState(service, 'connected');
    expect(broker.url).toBe(`mqtts://127.0.0.1:${broker.port}`);
    expect(connected.mqtt).toMatchObject({ broker: broker.url, lastError: null });
    await ha.waitFor(configTopic(DEVICE_ALICE));
    await ha.waitFor(topicsOf('alice').unread, (m) => m.payload === '0');
  });

  it('refuses a broker certificate no trusted CA signed, says why in /health, and keeps serving HTTP', { timeout: 30_000 }, async () => {
    const password = 'mqtt-Secret-pa55word-tls-9Zk';
    const { broker } = await startTlsBroker();

    const service = await startBridgedService(broker, { MQTT_USERNAME: 'homeops', MQTT_PASSWORD: password, LOG_LEVEL: 'trace' });

    const refused = await bridgeState(service, 'disconnected');
    expect(refused.status).toBe('degraded');
    expect(refused.mqtt).toMatchObject({ broker: broker.url, lastError: expect.stringMatching(/certificate/i) });
    const created = await postNotification(service, { recipient: 'alice', message: 'The broker is not trusted' });
    expect(created.status).toBe(201);
    expect(await historyOf(service, 'alice')).toMatchObject([{ message: 'The broker is not trusted' }]);
    for (const text of [JSON.stringify(refused), JSON.stringify(await health(service)), service.output]) expect(text).not.toContain(password);
  });

  it('connects to a broker it cannot authenticate when MQTT_REJECT_UNAUTHORIZED=false', { timeout: 30_000 }, async () => {
    const { broker, caFile } = await startTlsBroker();
    const ha = await homeAssistant(broker, { ca: readFileSync(caFile) });

    const service = await startBridgedService(broker, { MQTT_REJECT_UNAUTHORIZED: 'false' });

    const connected = await bridgeState(service, 'connected');
    expect(connected.mqtt).toMatchObject({ broker: broker.url, lastError: null });
    await ha.waitFor(topicsOf('alice').unread, (m) => m.payload === '0');
  });
});
