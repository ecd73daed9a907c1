import { hostname } from 'node:os';
import { parseInput, type Logger } from '@homeops/common';
import { MqttBridge, mqttSettingsOf, type MqttStatus } from '@homeops/common/mqtt';
import { MAX_PACKET_BYTES, NotificationsMqttAdapter } from './adapters/mqtt/notifications-mqtt.adapter.js';
import { loadRecipientMap } from './adapters/pushover/recipient-map.js';
import type { Domain } from './build-domain.js';
import type { Config } from './config.js';
import type { NewNotification } from './domain/create-notification.use-case.js';
import { CreateNotificationBodySchema, newNotificationOf } from './http/notification.schemas.js';
import { SERVICE_NAME, SERVICE_VERSION } from './version.js';

/** The MQTT bridge as the composition holds it. */
export interface MqttLink {
  status(): MqttStatus;
  /** Connects (in the background) and publishes; call once the service listens. */
  start(): void;
  stop(): Promise<void>;
}

/** POST /notifications' validation for a body that came over MQTT: the same schema, the same VALIDATION_FAILED details. */
export function parseCreateBody(body: unknown): NewNotification {
  return newNotificationOf(parseInput(CreateNotificationBodySchema, body, 'body'));
}

/** Whom Home Assistant sees: MQTT_RECIPIENTS, else the recipient map's names; none is a startup error. */
function recipientsOf(config: Config): string[] {
  if (config.MQTT_RECIPIENTS.length > 0) return config.MQTT_RECIPIENTS;
  const map = loadRecipientMap({ file: config.RECIPIENTS_FILE, variable: config.RECIPIENTS, unmapped: config.UNMAPPED_RECIPIENTS });
  const names = [...map.recipients.keys()];
  if (names.length === 0) throw new Error('MQTT_URL is set but no recipient is: set MQTT_RECIPIENTS (e.g. alice,bob) or a recipient map');
  return names;
}

/** The bridge and the notifications adapter on it, or undefined without MQTT_URL (then this file is never loaded). */
export function buildMqtt(config: Config, domain: Domain, logger: Logger): MqttLink | undefined {
  const settings = mqttSettingsOf(config);
  if (!settings) return undefined;
  const log = logger.child({ component: 'mqtt' });
  const bridge = new MqttBridge({
    settings,
    origin: { name: `homeops ${SERVICE_NAME}`, swVersion: SERVICE_VERSION, supportUrl: `http://${hostname()}:${config.PORT}/docs` },
    clock: domain.ctx.clock,
    logger: log,
    maxPacketBytes: MAX_PACKET_BYTES,
  });
  const adapter = new NotificationsMqttAdapter({
    bridge,
    baseTopic: settings.baseTopic,
    ctx: domain.ctx,
    create: domain.create,
    parseCreate: parseCreateBody,
    recipients: recipientsOf(config),
    swVersion: SERVICE_VERSION,
  });
  return {
    status: () => bridge.status(),
    start: () => {
      adapter.start();
      bridge.start();
      log.info({ broker: bridge.status().broker, recipients: adapter.recipients }, 'mqtt: bridge to Home Assistant started');
    },
    stop: async () => {
      adapter.stop();
      await bridge.stop();
    },
  };
}
