import type { CloudStatus } from './device-cloud.js';
import type { DeviceRecord } from './device.js';
import type { SyncResult } from './device-registry.js';

/** The events of the device families (their state as it changes), by family; each family adds its own. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the families
export interface FamilyDeviceEvents {}

/** What the service tells live listeners (GET /events): state, presence, sync and session changes. */
export type DeviceEvent =
  | { type: 'channel'; uuid: string; name: string; channel: number; on: boolean; source: 'command' | 'push' | 'read' }
  | { type: 'online'; uuid: string; name: string; online: boolean; upgrading: boolean; controllable: boolean }
  | FamilyDeviceEvents[keyof FamilyDeviceEvents]
  | { type: 'device'; device: DeviceRecord }
  | { type: 'device-removed'; uuid: string; name: string }
  | { type: 'sync'; ok: true; at: string; result: SyncResult }
  | { type: 'sync'; ok: false; at: string; error: string }
  | { type: 'session'; status: CloudStatus }
  /** A device watch changed state (docs/watches.md): quiet, holding (true, not long enough yet), firing, clearing. */
  | { type: 'watch'; name: string; uuid: string; state: 'quiet' | 'holding' | 'firing' | 'clearing'; at: string };

/** Receives every device event as it happens. */
export type DeviceEventListener = (event: DeviceEvent) => void;
