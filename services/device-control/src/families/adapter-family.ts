import type { MqttFamily } from '../adapters/mqtt/mqtt-family.js';

/** A device family, adapter side: what the shared adapters (the MQTT bridge) do for its devices. */
export interface AdapterFamily {
  /** Its Home Assistant entities, states and commands. */
  mqtt?: MqttFamily;
}
