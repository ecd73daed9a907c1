import type { Clock } from '@homeops/common';
import type { Capability, CloudDevice, CloudEvent } from '../../domain/device-cloud.js';
import type { FamilyPorts } from '../../families/adapter-family.js';
import type { DemoDevice, SimulatedDevice } from './simulated-devices.js';

/** What a family's simulator behaviour may ask of the simulated account. */
export interface SimulatorAccess {
  readonly clock: Clock;
  /** How long a moving part (a door, a shutter) takes for a full run. */
  readonly travelMs: number;
  /** The simulated round trip of one call. */
  roundTrip(): Promise<void>;
  /** The device, if the simulated cloud (or LAN) reaches it now; else throws what stands in the way. */
  reachable(uuid: string): SimulatedDevice;
  /** One message to the device: over the LAN where it has a LAN link, else through the cloud. */
  announceSent(uuid: string, what: string): void;
  emit(event: CloudEvent): void;
  /** Runs `run` after `ms` unless the simulator stops first (a moving part arriving). */
  later(run: () => void, ms: number): void;
}

/** A device family's behaviour in the simulator: its devices in the quick-start account, its reads and commands. */
export interface SimulatorFamily {
  readonly capability: Capability;
  /** The family's devices in the quick-start account (listed in the order of the families). */
  demo?(): DemoDevice[];
  /** Quick-start devices another family lists that have this family's capability too (their uuids). */
  readonly joins?: readonly string[];
  /** Sets the family's fields on each simulated device; `member`: the device has the family's capability. */
  fit?(device: CloudDevice, member: boolean): void;
  /** `count` devices of the family's plainest kind (benchmarks with many devices). */
  bulk?(count: number): DemoDevice[];
  port(access: SimulatorAccess): Partial<FamilyPorts>;
}
