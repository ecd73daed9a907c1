import type { Clock } from '@homeops/common';
import type { Capability, CloudEvent } from '../../domain/device-cloud.js';
import type { FamilyPorts } from '../../families/adapter-family.js';
import type { SimulatedDevice } from './simulated-devices.js';

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

/** A device family's behaviour in the simulator: its reads and commands on the simulated hardware. */
export interface SimulatorFamily {
  readonly capability: Capability;
  port(access: SimulatorAccess): Partial<FamilyPorts>;
}
