import type { AdapterFamily } from './adapter-family.js';
import { COVER_MEROSS } from './cover/adapters/cover.meross.js';
import { COVER_SIMULATOR } from './cover/adapters/cover.simulator.js';
import { ENERGY_MEROSS } from './energy/adapters/energy.meross.js';
import { ENERGY_SIMULATOR } from './energy/adapters/energy.simulator.js';
import { GARAGE_DOOR_MEROSS } from './garage-door/adapters/garage-door.meross.js';
import { GARAGE_DOOR_SIMULATOR } from './garage-door/adapters/garage-door.simulator.js';
import { HUB_MEROSS } from './hub/adapters/hub.meross.js';
import { HUB_SIMULATOR } from './hub/adapters/hub.simulator.js';
import { LIGHT_MEROSS } from './light/adapters/light.meross.js';
import { LIGHT_SIMULATOR } from './light/adapters/light.simulator.js';
import { SWITCH_MEROSS } from './switch/adapters/switch.meross.js';
import { SWITCH_SIMULATOR } from './switch/adapters/switch.simulator.js';

export type { AdapterFamily } from './adapter-family.js';

/** The device families' adapter parts, in the order a device's capabilities are listed; a new family adds a line. */
export const ADAPTER_FAMILIES: readonly AdapterFamily[] = [
  { capability: 'switch', meross: SWITCH_MEROSS, simulator: SWITCH_SIMULATOR },
  { capability: 'garageDoor', meross: GARAGE_DOOR_MEROSS, simulator: GARAGE_DOOR_SIMULATOR },
  { capability: 'cover', meross: COVER_MEROSS, simulator: COVER_SIMULATOR },
  { capability: 'light', meross: LIGHT_MEROSS, simulator: LIGHT_SIMULATOR },
  { capability: 'energy', meross: ENERGY_MEROSS, simulator: ENERGY_SIMULATOR },
  { capability: 'hubSensors', meross: HUB_MEROSS, simulator: HUB_SIMULATOR },
];
