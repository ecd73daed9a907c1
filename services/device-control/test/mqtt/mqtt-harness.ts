import { createLogger, EventStreamHub, serve, systemClock } from '@homeops/common';
import { eventually, Mosquitto, MqttRecorder } from '@homeops/test-kit';
import { afterEach } from 'vitest';
import { SimulatorCloud } from '../../src/adapters/simulator/simulator-cloud.adapter.js';
import { createApp } from '../../src/app.js';
import { deviceServiceOptions, parseConfig } from '../../src/config.js';
import { DeviceService } from '../../src/domain/device.service.js';
import { buildMqtt } from '../../src/start-mqtt.js';
import { DOMAIN_FAMILIES } from '../../src/families/index.js';

export const BASE = 'homeops/device-control';
export const PREFIX = 'homeassistant';
export const configTopic = (uuid: string) => `${PREFIX}/device/homeops_device_control_${uuid.replace(/[^a-z0-9]+/g, '_')}/config`;
export const deviceTopic = (uuid: string, rest: string) => `${BASE}/devices/${uuid.replace(/[^a-z0-9]+/g, '_')}/${rest}`;

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Runs `cleanup` after the test, in reverse order of registration. */
export function afterTest(cleanup: () => Promise<unknown>): void {
  cleanups.push(cleanup);
}

/** A fresh broker, stopped after the test. */
export async function startBroker(): Promise<Mosquitto> {
  const broker = await Mosquitto.start();
  afterTest(() => broker.close());
  return broker;
}

/** Home Assistant's side: a client that records everything under the prefix and the base topic. */
export async function homeAssistant(broker: Mosquitto): Promise<MqttRecorder> {
  const recorder = await MqttRecorder.connect(broker.url, [`${PREFIX}/#`, `${BASE}/#`]);
  afterTest(() => recorder.close());
  return recorder;
}

/**
 * device-control as main wires it (simulator backend, the bridge from MQTT_URL), in this process so a test can press a
 * simulated button and change the account; `env` overrides the variables.
 */
export async function startBridgedService(broker: Pick<Mosquitto, 'url'>, env: Record<string, string> = {}) {
  const logger = createLogger({ service: 'device-control', level: 'silent' });
  const config = parseConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    CLOUD_BACKEND: 'simulator',
    CLOUD_SYNC_INTERVAL_SECONDS: '0',
    MQTT_URL: broker.url,
    MQTT_RECONNECT_MIN_MS: '50',
    MQTT_RECONNECT_MAX_MS: '200',
    ...env,
  });
  const cloud = new SimulatorCloud({ clock: systemClock, doorTravelMs: 200 });
  const devices = new DeviceService(cloud, { ...deviceServiceOptions(config), families: DOMAIN_FAMILIES, lanPollSeconds: 0 }, logger, systemClock);
  const mqtt = buildMqtt(config, { devices, cloud, clock: systemClock, logger })!;
  const streams = new EventStreamHub({ heartbeatMs: 15_000, maxStreams: 10, maxStreamsPerAddress: 10, clock: systemClock });
  const app = createApp({ logger, cloud, devices, streams, clock: systemClock, mqttStatus: mqtt.status }, { API_KEY: undefined });
  const server = await serve({ app, port: 0, host: '127.0.0.1', logger, graceMs: 500 });
  afterTest(async () => {
    streams.closeAll();
    await server.stop();
    await mqtt.stop();
    await devices.stop();
  });
  mqtt.start();
  await devices.start();
  const base = `http://127.0.0.1:${server.port}`;
  return {
    cloud,
    devices,
    base,
    health: async () =>
      (await (await fetch(`${base}/health`)).json()) as {
        status: string;
        problems: string[];
        mqtt: { state: string; lastError: string | null; since: string | null };
      },
    /** A channel's state as GET /devices tells it. */
    channelOn: async (uuid: string, channel: number) => {
      const list = (await (await fetch(`${base}/devices`)).json()) as Array<{ uuid: string; channels: Array<{ channel: number; on: boolean | null }> }>;
      return list.find((d) => d.uuid === uuid)?.channels.find((c) => c.channel === channel)?.on;
    },
  };
}

/** Waits until /health says the bridge is in `state`. */
export function bridgeState(service: { health: () => Promise<{ mqtt: { state: string } }> }, state: string, timeoutMs = 10_000) {
  return eventually(async () => ((await service.health()).mqtt.state === state ? true : undefined), { what: `the bridge to be ${state}`, timeoutMs });
}
