import { eventually, haDiscoveryProblems, hasMosquittoPasswd, Mosquitto, MqttRecorder, type ServiceProcess } from '@homeops/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BASE,
  bridgeState,
  configTopic,
  DEVICE_ALICE,
  health,
  homeAssistant,
  launchBridgedService,
  PREFIX,
  startBridgedService,
  startBroker,
  topicsOf,
} from './mqtt-harness.js';

const DEVICE_BOB = 'homeops_notifications_bob';

describe('Home Assistant discovery of the notifications bridge', () => {
  describe('of one running service (the file starts it once for these tests)', () => {
    let broker: Mosquitto;
    let service: ServiceProcess;
    beforeAll(async () => {
      broker = await Mosquitto.start();
      service = await launchBridgedService(broker);
    }, 30_000);
    afterAll(async () => {
      await service?.stop();
      await broker?.close();
    });

    it('publishes one valid device per recipient, retained, with the states and availability', { timeout: 30_000 }, async () => {
      await bridgeState(service, 'connected');
      // A late subscriber sees what is retained: what Home Assistant reads when it starts after the service.
      const ha = await homeAssistant(broker);
      await ha.waitFor(configTopic(DEVICE_BOB));
      await ha.waitFor(topicsOf('bob').unread);

      const configs = ha.messages.filter((m) => m.topic.startsWith(`${PREFIX}/device/`));
      expect(configs.map((m) => m.topic).sort()).toEqual([configTopic(DEVICE_ALICE), configTopic(DEVICE_BOB)]);
      for (const config of configs) {
        expect(haDiscoveryProblems(config.topic, config.payload), config.topic).toEqual([]);
        expect(config.retain).toBe(true);
      }
      const alice = JSON.parse(ha.last(configTopic(DEVICE_ALICE))!.payload) as Record<string, Record<string, Record<string, unknown>>>;
      expect(Object.fromEntries(Object.entries(alice.cmps!).map(([id, c]) => [id, c.p]))).toEqual({
        notify: 'notify',
        unread: 'sensor',
        mark_all_read: 'button',
        alarm: 'event',
      });
      expect(alice.cmps!.alarm!.event_types).toEqual(['acknowledged', 'alarm-ended']);
      expect(alice).toMatchObject({ availability: [{ topic: `${BASE}/availability` }], availability_mode: 'all', o: { name: 'homeops notifications' } });
      expect(ha.last(`${BASE}/availability`)).toEqual({ topic: `${BASE}/availability`, payload: 'online', retain: true });
      expect(ha.last(topicsOf('alice').unread)).toMatchObject({ payload: '0', retain: true });
    });

    it('publishes discovery and states again when Home Assistant announces itself online', { timeout: 30_000 }, async () => {
      const ha = await homeAssistant(broker);
      for (const topic of [configTopic(DEVICE_ALICE), configTopic(DEVICE_BOB), topicsOf('alice').unread, topicsOf('bob').unread]) await ha.waitFor(topic);
      await bridgeState(service, 'connected');
      ha.clear();

      await ha.publish(`${PREFIX}/status`, 'online');

      await ha.waitFor(configTopic(DEVICE_ALICE));
      await ha.waitFor(configTopic(DEVICE_BOB));
      await ha.waitFor(topicsOf('alice').unread);
      // The configs come first: Home Assistant needs an entity before its state.
      const order = ha.messages.map((m) => m.topic);
      expect(order.indexOf(configTopic(DEVICE_ALICE))).toBeLessThan(order.indexOf(topicsOf('alice').unread));
      // Published again, not the retained copies a new subscription gets (those carry the retain flag).
      expect(ha.last(configTopic(DEVICE_ALICE))?.retain).toBe(false);
      for (const config of ha.messages.filter((m) => m.topic.endsWith('/config'))) expect(haDiscoveryProblems(config.topic, config.payload)).toEqual([]);
    });
  });

  it('clears the retained config of its own devices that are gone, and leaves other services alone', { timeout: 30_000 }, async () => {
    const broker = await startBroker();
    const seeder = await homeAssistant(broker);
    const carol = configTopic('homeops_notifications_carol');
    const lamp = configTopic('homeops_device_control_lamp');
    await seeder.publish(carol, '{"dev":{"ids":["homeops_notifications_carol"]}}', true);
    await seeder.publish(lamp, '{"dev":{"ids":["homeops_device_control_lamp"]}}', true);

    await startBridgedService(broker);
    await seeder.waitFor(carol, (m) => m.payload === '');

    const late = await MqttRecorder.connect(broker.url, [`${PREFIX}/device/+/config`]);
    await eventually(() => late.last(configTopic(DEVICE_BOB)), 'the retained configs');
    await late.close();
    expect(late.last(carol)).toBeUndefined();
    expect(late.last(lamp)?.payload).toContain('homeops_device_control_lamp');
  });

  it('says offline (retained) when the service stops', { timeout: 30_000 }, async () => {
    const broker = await startBroker();
    const ha = await homeAssistant(broker);
    const service = await startBridgedService(broker);
    await ha.waitFor(`${BASE}/availability`, (m) => m.payload === 'online');

    await service.stop();

    await ha.waitFor(`${BASE}/availability`, (m) => m.payload === 'offline');
    const late = await MqttRecorder.connect(broker.url, [`${BASE}/availability`]);
    await eventually(() => late.last(`${BASE}/availability`), 'the retained availability');
    await late.close();
    expect(late.last(`${BASE}/availability`)).toMatchObject({ payload: 'offline', retain: true });
  });

  it.runIf(hasMosquittoPasswd)('logs in with a password that never shows in /health or the logs', { timeout: 30_000 }, async () => {
    const password = 'mqtt-Secret-pa55word-7Qx';
    const broker = await startBroker({ user: { name: 'homeops', password } });
    const ha = await homeAssistant(broker, { username: 'homeops', password });
    const good = await startBridgedService(broker, { MQTT_USERNAME: 'homeops', MQTT_PASSWORD: password, LOG_LEVEL: 'trace' });
    const wrong = await startBridgedService(broker, { MQTT_URL: `mqtt://homeops:${password}x@127.0.0.1:${broker.port}`, LOG_LEVEL: 'trace' });

    const connected = await bridgeState(good, 'connected');
    const refused = await bridgeState(wrong, 'disconnected');
    await ha.waitFor(configTopic(DEVICE_ALICE));

    expect(connected.mqtt).toMatchObject({ broker: `mqtt://127.0.0.1:${broker.port}`, lastError: null });
    expect(refused.mqtt).toMatchObject({
      broker: `mqtt://127.0.0.1:${broker.port}`,
      lastError: expect.stringMatching(/not authorized|bad user name or password/i),
    });
    expect(refused.status).toBe('degraded');
    for (const text of [JSON.stringify(connected), JSON.stringify(refused), JSON.stringify(await health(good)), good.output, wrong.output]) {
      expect(text).not.toContain(password);
    }
    expect(wrong.output).toContain('mqtt: the broker cannot be reached');
  });
});
