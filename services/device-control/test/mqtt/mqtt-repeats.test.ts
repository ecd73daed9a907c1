import { describe, expect, it } from 'vitest';
import { BASE, PREFIX, bridgeState, configTopic, deviceTopic, homeAssistant, startBridgedService, startBroker } from './mqtt-harness.js';

const STRIP = 'sim-strip-0001';
const PLUG = 'sim-plug-0001';

/** Devices' retained states and configs the bridge published (the service's budget sensors change with every sync). */
const deviceStatesIn = (messages: Array<{ topic: string }>) =>
  messages.filter((m) => (m.topic.startsWith(`${BASE}/devices/`) || m.topic.startsWith(`${PREFIX}/`)) && !m.topic.endsWith('/press'));

describe('device-control in Home Assistant: a state is published when it changes', () => {
  it('publishes no device state or config again at syncs that changed nothing', { timeout: 30_000 }, async () => {
    const broker = await startBroker();
    const ha = await homeAssistant(broker);
    const service = await startBridgedService(broker);
    await ha.waitFor(deviceTopic(PLUG, 'channels/0/state'));
    await ha.waitFor(`${BASE}/service/session`);
    await bridgeState(service, 'connected');
    await ha.waitFor(configTopic(STRIP));
    ha.clear();

    await service.devices.sync();
    await service.devices.sync();
    // A marker after the syncs: once its state arrives, whatever the syncs published has arrived before it.
    service.cloud.pressButton(STRIP, 3);
    await ha.waitFor(deviceTopic(STRIP, 'channels/3/state'));

    expect(deviceStatesIn(ha.messages).map((m) => m.topic)).toEqual([deviceTopic(STRIP, 'channels/3/state')]);
  });

  it('publishes every config and state again when Home Assistant announces it is online', { timeout: 30_000 }, async () => {
    const broker = await startBroker();
    const ha = await homeAssistant(broker);
    const service = await startBridgedService(broker);
    await ha.waitFor(deviceTopic(PLUG, 'channels/0/state'));
    await bridgeState(service, 'connected');
    ha.clear();

    await ha.publish(`${PREFIX}/status`, 'online');

    await ha.waitFor(configTopic(PLUG));
    await ha.waitFor(deviceTopic(PLUG, 'channels/0/state'));
    await ha.waitFor(deviceTopic(STRIP, 'availability'));
  });
});
