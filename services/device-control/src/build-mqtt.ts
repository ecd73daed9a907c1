import { hostname } from 'node:os';
import type { Clock, Logger } from '@homeops/common';
import { MqttBridge, mqttSettingsOf, type MqttStatus } from '@homeops/common/mqtt';
import { DeviceControlMqttAdapter, MAX_PACKET_BYTES } from './adapters/mqtt/device-control-mqtt.adapter.js';
import { ADAPTER_FAMILIES } from './families/adapters.js';
import type { Config } from './config.js';
import type { DeviceCloud } from './domain/device-cloud.js';
import type { DeviceService } from './domain/device.service.js';
import { SERVICE_NAME, SERVICE_VERSION } from './version.js';

/** The MQTT bridge as the composition holds it. */
export interface MqttLink {
  status(): MqttStatus;
  /** Connects (in the background) and publishes; call once the service listens. */
  start(): void;
  stop(): Promise<void>;
}

/** What the bridge is built from: the domain service HTTP uses, the cloud's session status, the clock. */
export interface MqttDeps {
  devices: DeviceService;
  cloud: Pick<DeviceCloud, 'status'>;
  clock: Clock;
  logger: Logger;
}

/** The bridge and the device-control adapter on it, or undefined without MQTT_URL (then the composition never loads this file). */
export function buildMqtt(config: Config, deps: MqttDeps): MqttLink | undefined {
  const settings = mqttSettingsOf(config);
  if (!settings) return undefined;
  const log = deps.logger.child({ component: 'mqtt' });
  const bridge = new MqttBridge({
    settings,
    origin: { name: `homeops ${SERVICE_NAME}`, swVersion: SERVICE_VERSION, supportUrl: `http://${hostname()}:${config.PORT}/docs` },
    clock: deps.clock,
    logger: log,
    maxPacketBytes: MAX_PACKET_BYTES,
  });
  const adapter = new DeviceControlMqttAdapter({
    bridge,
    baseTopic: settings.baseTopic,
    devices: deps.devices,
    cloudStatus: () => deps.cloud.status(),
    clock: deps.clock,
    logger: log,
    swVersion: SERVICE_VERSION,
    readIntervalMs: config.MQTT_READ_INTERVAL_SECONDS * 1000,
    families: ADAPTER_FAMILIES,
  });
  return {
    status: () => bridge.status(),
    start: () => {
      adapter.start();
      bridge.start();
      log.info({ broker: bridge.status().broker }, 'mqtt: bridge to Home Assistant started');
    },
    stop: async () => {
      adapter.stop();
      await bridge.stop();
    },
  };
}
