import type { Principal } from '@homeops/common';
import type { FamilyCapabilities } from '../domain/device-cloud.js';

/** A family a devices:control token may name: a device family with commands (src/families/index.ts lists them). */
export type ControlFamily = { [K in keyof FamilyCapabilities]: FamilyCapabilities[K] extends { control: true } ? K : never }[keyof FamilyCapabilities];

/** Throws SCOPE_MISSING unless the caller's devices:control reaches this device for a command of this family. */
export function assertMayControl(principal: Principal, uuid: string, family: ControlFamily): void {
  principal.requireControl({ uuid, family });
}
