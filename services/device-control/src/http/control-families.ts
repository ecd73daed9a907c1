import type { Principal } from '@homeops/common';
import type { Capability } from '../domain/device-cloud.js';

/**
 * The families a devices:control token's `families` and `exceptFamilies` name: a command's family is the capability
 * it needs, spelled as GET /devices lists it. `switch`: toggle and channel on/off (a light's on/off included);
 * `garageDoor`: open and close; `cover`: open, close, stop and position; `light`: brightness, temperature and colour;
 * `hubSensors`: a valve behind a hub. `energy` is read-only, so no command has it.
 */
export const CONTROL_FAMILIES = ['switch', 'garageDoor', 'cover', 'light', 'hubSensors'] as const satisfies readonly Capability[];
export type ControlFamily = (typeof CONTROL_FAMILIES)[number];

/** Throws SCOPE_MISSING unless the caller's devices:control reaches this device for a command of this family. */
export function assertMayControl(principal: Principal, uuid: string, family: ControlFamily): void {
  principal.requireControl({ uuid, family });
}
