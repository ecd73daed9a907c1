import type { Api, AppMetrics, z } from '@homeops/common';
import type { Capability } from '../domain/device-cloud.js';
import type { DomainFamily } from '../domain/device-family.js';
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
  /** Fields the family adds to a device in GET /devices (after its capabilities). */
  readonly deviceFields?: DeviceFields;
  registerRoutes(api: Api, devices: DeviceService): void;
  /** Its Prometheus metrics, read at scrape time from what the family knows (no I/O); labels never name a device. */
  registerMetrics?(metrics: AppMetrics, devices: DeviceService): void;
}

/** A family's own fields of a device as GET /devices lists it: their schema, and their values for a device. */
export interface DeviceFields {
  readonly shape: z.ZodRawShape;
  of(device: DeviceView): Record<string, unknown>;
}
