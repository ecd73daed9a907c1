import { assertNoSlower, eventually, haDiscoveryProblems, MqttRecorder, Timing } from '@homeops/test-kit';
import { describe, expect, it } from 'vitest';
import { BASE, PREFIX, afterTest, bridgeState, configTopic, deviceTopic, homeAssistant, startBridgedService, startBroker } from './mqtt-harness.js';

const STRIP = 'sim-strip-0001';
const PLUG = 'sim-plug-0001';
const SERVICE_CONFIG = `${PREFIX}/device/homeops_device_control_service/config`;

describe('device-control in Home Assistant: switches and the service device', () => {
  it('publishes a discovery payload per device that Home Assistant accepts, with per-device availability', { timeout: 30_000 }, async () => {
    const broker = await startBroker();
    const ha = await homeAssistant(broker);
    await startBridgedService(broker);

    const strip = await ha.waitFor(configTopic(STRIP), (m) => m.payload.length > 0);
    await ha.waitFor(SERVICE_CONFIG);
    await ha.waitFor(configTopic('sim-hub-0001'));
    for (const config of ha.messages.filter((m) => m.topic.endsWith('/config')))
      expect(haDiscoveryProblems(config.topic, config.payload), config.topic).toEqual([]);
    const payload = JSON.parse(strip.payload) as { availability: Array<{ topic: string }>; availability_mode: string; cmps: Record<string, { p: string }> };
    expect(payload.availability.map((a) => a.topic)).toEqual([`${BASE}/availability`, deviceTopic(STRIP, 'availability')]);
    expect(payload.availability_mode).toBe('all');
    expect(Object.values(payload.cmps).filter((c) => c.p === 'switch')).toHaveLength(4);
    await ha.waitFor(deviceTopic(STRIP, 'availability'), (m) => m.payload === 'online');
    await ha.waitFor(deviceTopic('sim-plug-0002', 'availability'), (m) => m.payload === 'offline');
    await ha.waitFor(`${BASE}/service/session`, (m) => m.payload === 'connected');
    await ha.waitFor(`${BASE}/service/locked-out`, (m) => m.payload === 'OFF');
    await ha.waitFor(`${BASE}/service/budget/hour`);
  });

  it('switches a channel on ON and follows with the state topic', { timeout: 30_000 }, async () => {
    const broker = await startBroker();
    const ha = await homeAssistant(broker);
    const service = await startBridgedService(broker);
    await ha.waitFor(configTopic(STRIP));
    await bridgeState(service, 'connected');

    await ha.publish(deviceTopic(STRIP, 'channels/1/set'), 'ON');

    await ha.waitFor(deviceTopic(STRIP, 'channels/1/state'), (m) => m.payload === 'ON');
    expect(service.cloud.channelState(STRIP, 1)).toBe(true);
    expect(await service.channelOn(STRIP, 1)).toBe(true);
  });

  it('publishes a physical press on the state topic and as a press event', { timeout: 30_000 }, async () => {
    const broker = await startBroker();
    const ha = await homeAssistant(broker);
    const service = await startBridgedService(broker);
    await ha.waitFor(configTopic(STRIP));

    service.cloud.pressButton(STRIP, 2);

    await ha.waitFor(deviceTopic(STRIP, 'channels/2/state'), (m) => m.payload === 'ON');
    const press = await ha.waitFor(deviceTopic(STRIP, 'channels/2/press'));
    expect(JSON.parse(press.payload)).toMatchObject({ event_type: 'press' });
    expect(press.retain).toBe(false);
  });

  it('republishes the true state and the error when the budget refuses a command', { timeout: 30_000 }, async () => {
    const broker = await startBroker();
    const ha = await homeAssistant(broker);
    // The sync spends the only message of the minute; the next cloud command is refused.
    const service = await startBridgedService(broker, { CLOUD_MAX_MESSAGES_PER_MINUTE: '1', CLOUD_MAX_MESSAGES_PER_HOUR: '1' });
    await ha.waitFor(configTopic(PLUG));
    service.cloud.pressButton(PLUG, 0);
    await ha.waitFor(deviceTopic(PLUG, 'channels/0/state'), (m) => m.payload === 'ON');
    ha.clear();

    await ha.publish(deviceTopic(PLUG, 'channels/0/set'), 'OFF');

    const error = await ha.waitFor(deviceTopic(PLUG, 'error'));
    expect(JSON.parse(error.payload)).toMatchObject({ code: 'COMMAND_BUDGET_EXHAUSTED', topic: deviceTopic(PLUG, 'channels/0/set') });
    await ha.waitFor(deviceTopic(PLUG, 'channels/0/state'), (m) => m.payload === 'ON');
    expect(service.cloud.channelState(PLUG, 0)).toBe(true);
    // Unchanged by the refusal, so not published again: a subscriber now sees the retained 0.
    const late = await MqttRecorder.connect(broker.url, [`${BASE}/service/budget/burst`]);
    afterTest(() => late.close());
    await late.waitFor(`${BASE}/service/budget/burst`, (m) => m.payload === '0' && m.retain);
  });

  it('publishes discovery again when Home Assistant announces itself', { timeout: 30_000 }, async () => {
    const broker = await startBroker();
    const ha = await homeAssistant(broker);
    const service = await startBridgedService(broker);
    await ha.waitFor(configTopic(STRIP));
    await bridgeState(service, 'connected');
    ha.clear();

    await ha.publish(`${PREFIX}/status`, 'online');

    await ha.waitFor(configTopic(STRIP));
    await ha.waitFor(SERVICE_CONFIG);
  });

  it('clears the retained config of a device removed from the account, and follows a rename', { timeout: 30_000 }, async () => {
    const broker = await startBroker();
    const ha = await homeAssistant(broker);
    const service = await startBridgedService(broker);
    await ha.waitFor(configTopic('sim-plug-0002'), (m) => m.payload.length > 0);

    service.cloud.removeDevice('sim-plug-0002');
    service.cloud.renameDevice(STRIP, 'Lounge Strip');
    await service.devices.sync();

    await ha.waitFor(configTopic('sim-plug-0002'), (m) => m.payload === '');
    await ha.waitFor(configTopic(STRIP), (m) => m.payload.includes('Lounge Strip'));
  });

  it('never slows GET /devices while the broker is down, and recovers by itself', { timeout: 30_000 }, async () => {
    const broker = await startBroker();
    const service = await startBridgedService(broker);
    await bridgeState(service, 'connected');
    // The slowest of 20 requests: one that waited for the broker would take the bridge's 5 s call deadline.
    const slowestDevices = async () => {
      const timings: Timing[] = [];
      for (let i = 0; i < 20; i++) timings.push(await Timing.of(async () => expect((await fetch(`${service.base}/devices`)).status).toBe(200)));
      return Timing.slowest(timings);
    };
    const withBroker = await slowestDevices();

    await broker.stop();
    await bridgeState(service, 'disconnected');
    const withoutBroker = await slowestDevices();
    await switchOnOverHttp(service.base);

    // Side by side; the floor leaves room for a loaded machine and is far below the broker deadline.
    assertNoSlower('the slowest GET /devices without the broker', withoutBroker, withBroker, { factor: 5, floorMs: 1_000 });
    // Between reconnect attempts (the bridge says connecting while one runs) /health is degraded and names the broker.
    await eventually(async () => {
      const health = await service.health();
      return (health.status === 'degraded' && health.problems.join(' ').includes('MQTT broker')) || undefined;
    }, 'a degraded /health naming the broker');

    await broker.run();
    await bridgeState(service, 'connected');
    const late = await MqttRecorder.connect(broker.url, [`${PREFIX}/device/+/config`, `${BASE}/devices/+/channels/+/state`]);
    await eventually(() => late.last(configTopic(STRIP)), 'the configs published again');
    // The toggle made while the broker was away reaches it after the reconnect.
    await eventually(() => late.last(deviceTopic(STRIP, 'channels/1/state'))?.payload === 'ON' || undefined, 'the state kept meanwhile');
    await late.close();
  });
});

/** PUT /devices/:uuid/channels/1 `{ on: true }` over HTTP while the broker is away. */
async function switchOnOverHttp(base: string): Promise<void> {
  const res = await fetch(`${base}/devices/${STRIP}/channels/1`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"on":true}' });
  expect(res.status).toBe(200);
}
