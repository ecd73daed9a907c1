import { haDiscoveryProblems } from '@homeops/test-kit';
import { describe, expect, it } from 'vitest';
import { configTopic, deviceTopic, homeAssistant, startBridgedService, startBroker } from './mqtt-harness.js';

const BULB = 'sim-bulb-0001';
const PLUG = 'sim-plug-0001';
const HUB = 'sim-hub-0001';
// Room for the reads in the budget's background share.
const ROOMY = { CLOUD_MAX_MESSAGES_PER_MINUTE: '60', CLOUD_MAX_MESSAGES_PER_HOUR: '600', MQTT_READ_INTERVAL_SECONDS: '1' };

describe('device-control in Home Assistant: lights, energy plugs and hubs', () => {
  it('shows a light as a JSON-schema light with its features, and sets brightness and colour temperature', { timeout: 30_000 }, async () => {
    const broker = await startBroker();
    const ha = await homeAssistant(broker);
    const service = await startBridgedService(broker);
    const config = await ha.waitFor(configTopic(BULB), (m) => m.payload.includes('"light0"'));
    const light = JSON.parse(config.payload).cmps.light0;
    expect(light).toMatchObject({ p: 'light', schema: 'json', supported_color_modes: ['color_temp', 'rgb'], brightness: true, color_temp_kelvin: true });
    expect(JSON.parse(config.payload).cmps.ch0).toBeUndefined();
    await ha.waitFor(deviceTopic(BULB, 'lights/0/state'), (m) => JSON.parse(m.payload).state === 'ON');

    await ha.publish(deviceTopic(BULB, 'lights/0/set'), JSON.stringify({ state: 'ON', brightness: 30, color_temp: 6500 }));

    await ha.waitFor(deviceTopic(BULB, 'lights/0/state'), (m) => JSON.parse(m.payload).brightness === 30 && JSON.parse(m.payload).color_temp === 6500);
    const read = (await (await fetch(`${service.base}/devices/${BULB}/light`)).json()) as unknown;
    expect(JSON.stringify(read)).toContain('"brightness":30');

    await ha.publish(deviceTopic(BULB, 'lights/0/set'), JSON.stringify({ state: 'OFF' }));
    await ha.waitFor(deviceTopic(BULB, 'lights/0/state'), (m) => JSON.parse(m.payload).state === 'OFF');
    expect(service.cloud.channelState(BULB, 0)).toBe(false);
  });

  it('reports the colour mode of the last change: rgb after a colour set over MQTT or REST, color_temp after a temperature', { timeout: 30_000 }, async () => {
    const broker = await startBroker();
    const ha = await homeAssistant(broker);
    const service = await startBridgedService(broker);
    const state = (check: (light: { color_mode?: string; color?: unknown }) => boolean) =>
      ha.waitFor(deviceTopic(BULB, 'lights/0/state'), (m) => check(JSON.parse(m.payload) as { color_mode?: string }));
    await state((light) => light.color_mode === 'color_temp');

    await ha.publish(deviceTopic(BULB, 'lights/0/set'), JSON.stringify({ state: 'ON', color: { r: 255, g: 0, b: 0 } }));
    await state((light) => light.color_mode === 'rgb' && JSON.stringify(light.color) === '{"r":255,"g":0,"b":0}');
    await ha.publish(deviceTopic(BULB, 'lights/0/set'), JSON.stringify({ color_temp: 3000 }));
    await state((light) => light.color_mode === 'color_temp');
    ha.clear();
    const res = await fetch(`${service.base}/devices/${BULB}/light/0`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ rgb: '#00ff00' }),
    });

    expect(res.status).toBe(200);
    await state((light) => light.color_mode === 'rgb' && JSON.stringify(light.color) === '{"r":0,"g":255,"b":0}');
    const read = (await (await fetch(`${service.base}/devices/${BULB}/light`)).json()) as { lights: Array<{ mode: string }> };
    expect(read.lights[0]?.mode).toBe('rgb');
  });

  it('reads energy plugs and hubs within the budget and publishes their sensors and valves', { timeout: 30_000 }, async () => {
    const broker = await startBroker();
    const ha = await homeAssistant(broker);
    await startBridgedService(broker, ROOMY);

    await ha.waitFor(deviceTopic(PLUG, 'energy/power'));
    await ha.waitFor(deviceTopic(PLUG, 'energy/voltage'));
    await ha.waitFor(deviceTopic(PLUG, 'energy/energy'));
    await ha.waitFor(deviceTopic(HUB, 'hub/01008c11/target'), (m) => m.payload === '21');
    await ha.waitFor(deviceTopic(HUB, 'hub/120027d2/humidity'), (m) => m.payload === '68.4');
    const hub = await ha.waitFor(configTopic(HUB), (m) => m.payload.includes('climate'));
    expect(haDiscoveryProblems(hub.topic, hub.payload)).toEqual([]);
    expect(JSON.parse(hub.payload).cmps['01008c11_valve']).toMatchObject({ p: 'climate', modes: ['heat', 'off'], min_temp: 5, max_temp: 35, temp_step: 0.5 });
    const plug = await ha.waitFor(configTopic(PLUG));
    expect(JSON.parse(plug.payload).cmps.energy).toMatchObject({ state_class: 'total_increasing', unit_of_measurement: 'kWh' });

    await ha.publish(deviceTopic(HUB, 'hub/01008c11/target/set'), '22.5');
    await ha.waitFor(deviceTopic(HUB, 'hub/01008c11/target'), (m) => m.payload === '22.5');
  });
});
