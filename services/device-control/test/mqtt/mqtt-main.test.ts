import { eventually, ServiceProcess } from '@homeops/test-kit';
import { describe, expect, it } from 'vitest';
import { afterTest, BASE, configTopic, deviceTopic, homeAssistant, startBridgedService, startBroker } from './mqtt-harness.js';

const health = async (base: string) => (await (await fetch(`${base}/health`)).json()) as { mqtt: { state: string; broker: string | null } };

describe('device-control bridge as main runs it', () => {
  it('loads the bridge with MQTT_URL: discovery on the broker, and mqtt in /health', { timeout: 30_000 }, async () => {
    const broker = await startBroker();
    const ha = await homeAssistant(broker);
    const service = await ServiceProcess.start({ service: 'device-control', env: { CLOUD_BACKEND: 'simulator', MQTT_URL: broker.url } });
    afterTest(() => service.stop());

    await ha.waitFor(configTopic('sim-strip-0001'));
    await ha.waitFor(`${BASE}/availability`, (m) => m.payload === 'online');
    await eventually(async () => (await health(service.baseUrl)).mqtt.state === 'connected' || undefined, 'the bridge connected in /health');
    expect((await health(service.baseUrl)).mqtt.broker).toBe(broker.url);
  });

  it('shows mqtt off in /health without MQTT_URL', { timeout: 30_000 }, async () => {
    const service = await ServiceProcess.start({ service: 'device-control', env: { CLOUD_BACKEND: 'simulator' } });
    afterTest(() => service.stop());

    expect((await health(service.baseUrl)).mqtt).toMatchObject({ state: 'off', broker: null });
  });

  it('marks a device unavailable while it is offline, and available again when it is back', { timeout: 30_000 }, async () => {
    const broker = await startBroker();
    const ha = await homeAssistant(broker);
    const service = await startBridgedService(broker);
    await ha.waitFor(deviceTopic('sim-strip-0001', 'availability'), (m) => m.payload === 'online');

    service.cloud.setOnline('sim-strip-0001', false);
    await ha.waitFor(deviceTopic('sim-strip-0001', 'availability'), (m) => m.payload === 'offline');
    ha.clear();
    service.cloud.setOnline('sim-strip-0001', true);

    await ha.waitFor(deviceTopic('sim-strip-0001', 'availability'), (m) => m.payload === 'online');
  });
});
