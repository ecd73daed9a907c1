import type { Api, AppMetrics, z } from '@homeops/common';
import type { Capability } from '../domain/device-cloud.js';
import type { DomainFamily, FamilyDeviceCounts } from '../domain/device-family.js';
import type { DeviceService } from '../domain/device.service.js';
import type { DeviceView } from '../domain/device.js';

/**
 * A device family as the app registers it: its domain part (built by the device service), its routes, and what it
 * adds to the service's vocabulary. Its adapter parts register on the adapter side (src/families/adapters.ts).
 */
export interface DeviceFamily {
  /** The capability, as GET /devices lists it and a token's `families` names it. */
  readonly capability: Capability;
  readonly domain: DomainFamily;
  /** Whether the family has commands (a devices:control token may name it); a read-only family has none. */
  readonly control: boolean;
  /** The types of the events it announces on GET /events, in the order the route's summary lists them. */
  readonly events: readonly string[];
  /** What GET /devices says of its capability (the `capabilities` field's description), if anything. */
  readonly note?: string;
  /** Fields the family adds to a device in GET /devices (after its capabilities). */
  readonly deviceFields?: DeviceFields;
  /** What it adds to /health: its device counts (FamilyState.counts) and the problems they tell. */
  readonly health?: FamilyHealth;
  /** Its routes; `metrics` (undefined with METRICS=off) for a family that counts its commands. */
  registerRoutes(api: Api, devices: DeviceService, metrics: AppMetrics | undefined): void;
}

/** A family's part of /health: the schema of its counts in `devices`, and the problems they tell, each a sentence. */
export interface FamilyHealth {
  readonly counts: z.ZodRawShape;
  problems(devices: Partial<FamilyDeviceCounts>): string[];
}

/** A family's own fields of a device as GET /devices lists it: their schema, and their values for a device. */
export interface DeviceFields {
  readonly shape: z.ZodRawShape;
  of(device: DeviceView): Record<string, unknown>;
}
