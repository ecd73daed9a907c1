import type { AdapterFamily } from './adapter-family.js';
import { COVER_MQTT } from './cover/adapters/cover.mqtt.js';
import { ENERGY_MQTT } from './energy/adapters/energy.mqtt.js';
import { GARAGE_DOOR_MQTT } from './garage-door/adapters/garage-door.mqtt.js';
import { HUB_MQTT } from './hub/adapters/hub.mqtt.js';
import { LIGHT_MQTT } from './light/adapters/light.mqtt.js';
import { SWITCH_MQTT } from './switch/adapters/switch.mqtt.js';

export type { AdapterFamily } from './adapter-family.js';

/**
 * The device families' adapter parts, in the order their entities appear in a device's discovery and their command
 * topics are subscribed to: the switch family first, then as src/families/index.ts lists them.
 */
export const ADAPTER_FAMILIES: readonly AdapterFamily[] = [
  { mqtt: SWITCH_MQTT },
  { mqtt: GARAGE_DOOR_MQTT },
  { mqtt: COVER_MQTT },
  { mqtt: LIGHT_MQTT },
  { mqtt: ENERGY_MQTT },
  { mqtt: HUB_MQTT },
];
