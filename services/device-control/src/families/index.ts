import type { ControlFamily } from '../http/control-families.js';
import type { DeviceFamily } from './device-family.js';
import { COVERS } from './cover/domain/covers.js';
import { registerCoverRoutes } from './cover/http/cover.router.js';
import { COVER_DEVICE_FIELDS } from './cover/http/cover.schemas.js';
import { ENERGY } from './energy/domain/energy.js';
import { registerEnergyRoutes } from './energy/http/energy.router.js';
import { GARAGE_DOORS } from './garage-door/domain/garage-doors.js';
import { registerGarageDoorRoutes } from './garage-door/http/garage-door.router.js';
import { HUBS } from './hub/domain/hubs.js';
import { registerHubRoutes } from './hub/http/hub.router.js';
import { LIGHTS } from './light/domain/lights.js';
import { registerLightRoutes } from './light/http/light.router.js';
import { SWITCHES } from './switch/domain/switches.js';
import { registerSwitchRoutes } from './switch/http/switch.router.js';
import { SWITCH_HEALTH, SWITCH_NOTE } from './switch/http/switch.schemas.js';

export type { DeviceFamily } from './device-family.js';

/** The device families, in the order their routes appear in /openapi.json; adding a family is a folder and a line here. */
export const FAMILIES: readonly DeviceFamily[] = [
  { capability: 'switch', domain: SWITCHES, control: true, events: [], note: SWITCH_NOTE, health: SWITCH_HEALTH, registerRoutes: registerSwitchRoutes },
  { capability: 'garageDoor', domain: GARAGE_DOORS, control: true, events: ['garageDoor'], registerRoutes: registerGarageDoorRoutes },
  { capability: 'cover', domain: COVERS, control: true, events: ['cover'], deviceFields: COVER_DEVICE_FIELDS, registerRoutes: registerCoverRoutes },
  { capability: 'light', domain: LIGHTS, control: true, events: ['light'], registerRoutes: registerLightRoutes },
  { capability: 'energy', domain: ENERGY, control: false, events: ['power', 'energy'], registerRoutes: registerEnergyRoutes },
  { capability: 'hubSensors', domain: HUBS, control: true, events: ['hub'], registerRoutes: registerHubRoutes },
];

/** The domain parts, for the device service's `families` option. */
export const DOMAIN_FAMILIES = FAMILIES.map((f) => f.domain);

/**
 * The families a devices:control token's `families` and `exceptFamilies` name: a command's family is the capability
 * it needs, spelled as GET /devices lists it (`switch` takes a light's on/off too). A read-only family (energy) has
 * no command, so no token names it.
 */
export const CONTROL_FAMILIES: readonly ControlFamily[] = FAMILIES.filter((f) => f.control).map((f) => f.capability as ControlFamily);

/** The event types of the families, for the summary of GET /events. */
export const FAMILY_EVENTS: readonly string[] = FAMILIES.flatMap((f) => f.events);
