import type { AdapterFamily } from './adapter-family.js';
import { COVER_MEROSS } from './cover/adapters/cover.meross.js';
import { COVER_MQTT } from './cover/adapters/cover.mqtt.js';
import { COVER_SIMULATOR } from './cover/adapters/cover.simulator.js';
import { ENERGY_MEROSS } from './energy/adapters/energy.meross.js';
import { ENERGY_MQTT } from './energy/adapters/energy.mqtt.js';
import { ENERGY_SIMULATOR } from './energy/adapters/energy.simulator.js';
import { GARAGE_DOOR_MEROSS } from './garage-door/adapters/garage-door.meross.js';
import { GARAGE_DOOR_MQTT } from './garage-door/adapters/garage-door.mqtt.js';
import { GARAGE_DOOR_SIMULATOR } from './garage-door/adapters/garage-door.simulator.js';
import { HUB_MEROSS } from './hub/adapters/hub.meross.js';
import { HUB_MQTT } from './hub/adapters/hub.mqtt.js';
import { HUB_SIMULATOR } from './hub/adapters/hub.simulator.js';
import { LIGHT_MEROSS } from './light/adapters/light.meross.js';
import { lightMqtt } from './light/adapters/light.mqtt.js';
import { LIGHT_SIMULATOR } from './light/adapters/light.simulator.js';
import { THERMOSTAT_MEROSS } from './thermostat/adapters/thermostat.meross.js';
import { THERMOSTAT_MQTT } from './thermostat/adapters/thermostat.mqtt.js';
import { THERMOSTAT_SIMULATOR } from './thermostat/adapters/thermostat.simulator.js';
import { SWITCH_MEROSS } from './switch/adapters/switch.meross.js';
import { SWITCH_MQTT } from './switch/adapters/switch.mqtt.js';
import { SWITCH_SIMULATOR } from './switch/adapters/switch.simulator.js';
import { SWITCHES } from './switch/domain/switches.js';

export type { AdapterFamily } from './adapter-family.js';

/**
 * The device families' adapter parts, in the order a device's capabilities are listed, its entities appear in its
 * discovery and their command topics are subscribed to (the bytes depend on it); a new family adds a line. A light's
 * on/off is its channel's power, which the switch family owns: it is handed in here, so that no family imports another.
 */
export const ADAPTER_FAMILIES: readonly AdapterFamily[] = [
  { capability: 'switch', meross: SWITCH_MEROSS, simulator: SWITCH_SIMULATOR, mqtt: SWITCH_MQTT },
  { capability: 'garageDoor', meross: GARAGE_DOOR_MEROSS, simulator: GARAGE_DOOR_SIMULATOR, mqtt: GARAGE_DOOR_MQTT },
  { capability: 'cover', meross: COVER_MEROSS, simulator: COVER_SIMULATOR, mqtt: COVER_MQTT },
  { capability: 'light', meross: LIGHT_MEROSS, simulator: LIGHT_SIMULATOR, mqtt: lightMqtt(SWITCHES) },
  { capability: 'energy', meross: ENERGY_MEROSS, simulator: ENERGY_SIMULATOR, mqtt: ENERGY_MQTT },
  { capability: 'hubSensors', meross: HUB_MEROSS, simulator: HUB_SIMULATOR, mqtt: HUB_MQTT },
  { capability: 'thermostat', meross: THERMOSTAT_MEROSS, simulator: THERMOSTAT_SIMULATOR, mqtt: THERMOSTAT_MQTT },
];
