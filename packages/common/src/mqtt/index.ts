// The `./mqtt` export of this package: the MQTT bridge for Home Assistant and its config. Importing it loads zod only;
// the `mqtt` package is loaded when a bridge starts, so a service without MQTT_URL never loads it.
export { mqttShape, mqttSettingsOf, brokerLabel, type MqttConfig, type MqttSettings } from './mqtt-config.js';
export { MqttBridge, topicMatches, type MqttBridgeOptions, type MqttMessageHandler, type MqttStatus } from './mqtt-bridge.js';
export { MqttStatusSchema, MQTT_OFF } from './mqtt-status.js';
export {
  buildDiscoveryMessage,
  discoveryTopic,
  slugOf,
  type DiscoveryComponent,
  type DiscoveryDevice,
  type DiscoveryMessage,
  type DiscoveryOrigin,
} from './discovery.js';
export { OutboundQueue, type OutboundMessage, type RetainedKind } from './outbound-queue.js';
export { PacketSizeGuard, PacketTooLargeError, guardPacketSize, type GuardedStream } from './packet-size-guard.js';
