import type { MerossFamily } from '../adapters/meross/meross-family.js';
import type { MqttFamily } from '../adapters/mqtt/mqtt-family.js';
import type { SimulatorFamily } from '../adapters/simulator/simulator-family.js';
import type { Capability, FamilyClouds } from '../domain/device-cloud.js';

/** The reads and commands a backend serves to the device families. */
export type FamilyPorts = FamilyClouds;

/**
 * A device family as the adapters see it: its Meross codec, its simulator behaviour, its Home Assistant entities.
 * The shared adapters take the list (src/families/adapters.ts) and never name a family.
 */
export interface AdapterFamily {
  /** The capability, as GET /devices lists it. */
  readonly capability: Capability;
  readonly meross?: MerossFamily;
  readonly simulator?: SimulatorFamily;
  /** Its Home Assistant entities, states and commands. */
  readonly mqtt?: MqttFamily;
}
