import type { BackgroundStateReads } from './background-reads.js';
import type { DeviceActionsDeps } from './device-actions.js';
import type { Capability, CloudEvent, FamilyDeviceFlags } from './device-cloud.js';
import type { Device } from './device.js';
import type { FamilyWatches } from './watches/family-watches.js';

/** What a device family keeps of the devices: the device service hands it every cloud event and each lost device. */
export interface FamilyState {
  /** A cloud event: the family takes those of its own types and ignores the rest. */
  onCloudEvent(event: CloudEvent): void;
  /** The device went away or lost its command channel (it missed pushes): what the family knew of it is stale. */
  forget(uuid: string): void;
  /** The states it reads nobody asked for (after a sync, when a device or its command channel comes back), if any. */
  readonly backgroundReads?: BackgroundStateReads;
  /** What it counts of the devices for /health's `devices`, if anything. */
  counts?(devices: readonly Device[]): Partial<FamilyDeviceCounts>;
}

/** Counts of devices the families add to /health's `devices`; each family adds its own (declaration merging). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the families
export interface FamilyDeviceCounts {}

/** Settings of the device families among the device service's options; each family adds its own. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the families
export interface FamilyOptions {}

/** A device family, domain side: builds its use-cases on the device service's registry, budget and queue. */
export interface DomainFamily<S extends FamilyState = FamilyState> {
  /** The capability the family acts on, as GET /devices lists it. */
  readonly capability: Capability;
  /** The flags its devices may have (kept from the backend's description of a device). */
  readonly deviceFlags?: readonly (keyof FamilyDeviceFlags)[];
  /**
   * The flag a device needs to be `controllable` (GET /devices, the `online` event), kept like a device flag and
   * shown on every device, false included, after `commandReady`. At most one family names one.
   */
  readonly controlFlag?: keyof FamilyDeviceFlags;
  create(deps: DeviceActionsDeps, options: FamilyOptions): S;
  /** What a refused channel command tells of a device of the family: what the device is, and the routes it takes. */
  readonly refusal?: { is?: string; instead?(at: string): string };
  /** The watch conditions it gives (docs/watches.md), if any. */
  readonly watches?: FamilyWatches;
}
