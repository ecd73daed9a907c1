import { systemClock } from '@homeops/common';
import { afterTest, eventually, Mosquitto, MqttRecorder } from '@homeops/test-kit';
import { InMemoryWatchStore } from '../../src/adapters/watches/file-watch-store.js';
import { SimulatorCloud } from '../../src/adapters/simulator/simulator-cloud.adapter.js';
import { startDeviceControl } from '../../src/compose.js';
import { deviceServiceOptions, parseConfig } from '../../src/config.js';
import { memoryTokens, silentLogger } from '../support/test-app.js';

export const BASE = 'homeops/device-control';
export const PREFIX = 'homeassistant';
export const configTopic = (uuid: string) => `${PREFIX}/device/homeops_device_control_${uuid.replace(/[^a-z0-9]+/g, '_')}/config`;
export const deviceTopic = (uuid: string, rest: string) => `${BASE}/devices/${uuid.replace(/[^a-z0-9]+/g, '_')}/${rest}`;

/** test-kit's, so a file may take every helper from here. */
export { afterTest };

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
 * device-control as main starts it (startDeviceControl: simulator backend, the bridge from MQTT_URL), in this process so
 * a test can press a simulated button and change the account; `env` overrides the variables.
 */
export async function startBridgedService(broker: Pick<Mosquitto, 'url'>, env: Record<string, string> = {}) {
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
  const server = await startDeviceControl(
    config,
    {
      logger: silentLogger,
      cloud,
      deviceOptions: { ...deviceServiceOptions(config), lanPollSeconds: 0 },
      tokens: memoryTokens(),
      watchStore: new InMemoryWatchStore(),
    },
    { handleSignals: false },
  );
  afterTest(() => server.stop());
  const base = `http://127.0.0.1:${server.port}`;
  return {
    cloud,
    devices: server.service.devices,
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
