import type { CloudStatus, CoverMotion, DailyEnergy, GarageDoorState, HubSubDeviceReading, LightReading, PowerReading } from './device-cloud.js';
import type { DeviceRecord } from './device.js';
import type { SyncResult } from './device-registry.js';

/** What the service tells live listeners (GET /events): state, presence, sync and session changes. */
export type DeviceEvent =
  | { type: 'channel'; uuid: string; name: string; channel: number; on: boolean; source: 'command' | 'push' | 'read' }
  | { type: 'online'; uuid: string; name: string; online: boolean; upgrading: boolean; controllable: boolean }
  | { type: 'garageDoor'; uuid: string; name: string; channel: number; state: GarageDoorState; source: 'command' | 'push' | 'read' }
  | ({ type: 'light'; uuid: string; name: string; source: 'command' | 'push' | 'read' } & LightReading)
  | ({ type: 'power'; uuid: string; name: string; at: string } & PowerReading)
  | { type: 'energy'; uuid: string; name: string; at: string; days: DailyEnergy[] }
  | { type: 'hub'; uuid: string; name: string; at: string; subdevices: HubSubDeviceReading[]; source: 'command' | 'push' | 'read' }
  | { type: 'cover'; uuid: string; name: string; channel: number; position: number | null; motion: CoverMotion; source: 'command' | 'push' | 'read' }
  | { type: 'device'; device: DeviceRecord }
  | { type: 'device-removed'; uuid: string; name: string }
  | { type: 'sync'; ok: true; at: string; result: SyncResult }
  | { type: 'sync'; ok: false; at: string; error: string }
  | { type: 'session'; status: CloudStatus }
  /** A device watch changed state (docs/watches.md): quiet, holding (true, not long enough yet), firing, clearing. */
  | { type: 'watch'; name: string; uuid: string; state: 'quiet' | 'holding' | 'firing' | 'clearing'; at: string };

/** Receives every device event as it happens. */
export type DeviceEventListener = (event: DeviceEvent) => void;
