import { z } from '@homeops/common';
import type { Capability, CloudChannel, CloudDevice, DeviceLink } from '../../domain/device-cloud.js';
import { record } from './meross-abilities.js';
import { CloudCallError } from './meross-codes.js';
import type { DeviceEntry } from './meross-device-entry.js';
import { capabilitiesOfType, type MerossFamily } from './meross-family.js';
import type { MerossDeviceDefinition } from './meross-library.js';

/** One channel's state as a device reported it. */
export interface ChannelReading {
  channel: number;
  on: boolean;
}

const DeviceDefinitionSchema = z.looseObject({
  uuid: z.string().min(1),
  deviceType: z.string(),
  devName: z.string().optional(),
  onlineStatus: z.number().optional(),
  channels: z.array(z.looseObject({ devName: z.string().optional() }).nullable()).optional(),
  fmwareVersion: z.string().optional(),
  hdwareVersion: z.string().optional(),
  domain: z.string().optional(),
  reservedDomain: z.string().optional(),
});

/** Checks a devList answer before the library sees it; anything odd rejects the whole list. */
export function assertDeviceList(data: unknown, mqttDomain: string): MerossDeviceDefinition[] {
  const parsed = z.array(DeviceDefinitionSchema).safeParse(data);
  if (!parsed.success) throw new CloudCallError('malformed', null, '/v1/Device/devList: not a list of devices');
  // The library routes commands by `domain`; a device without one would have no command channel.
  return parsed.data.map((d) => ({ ...d, domain: d.domain || d.reservedDomain || mqttDomain }));
}

function channelsOf(def: MerossDeviceDefinition): CloudChannel[] {
  const listed = def.channels ?? [];
  if (listed.length <= 1) return [{ channel: 0, name: def.devName || def.uuid }];
  return listed.map((c, i) => ({ channel: i, name: c?.devName || (i === 0 ? 'All' : `Channel ${i}`) }));
}

/** The domain's view of a devList entry plus what the adapter knows about its command channel. */
export function toCloudDevice(
  def: MerossDeviceDefinition,
  entry: DeviceEntry,
  families: readonly MerossFamily[],
  live: { online: boolean; upgrading: boolean; commandReady: boolean; capabilities: Capability[] | null; link?: DeviceLink },
): CloudDevice {
  // Until its abilities are read, the device type tells the family; no command goes out before they are read.
  const capabilities = live.capabilities ?? capabilitiesOfType(families, def.deviceType);
  const device: CloudDevice = {
    uuid: def.uuid,
    name: def.devName || def.uuid,
    type: def.deviceType,
    online: live.online,
    commandReady: live.commandReady,
    capabilities,
    channels: channelsOf(def),
  };
  if (live.upgrading) device.upgrading = true;
  for (const family of families) family.fit?.(device, capabilities.includes(family.capability), entry);
  for (const family of families) if (capabilities.includes(family.capability)) family.describe?.(device, def, entry);
  if (def.fmwareVersion) device.firmware = def.fmwareVersion;
  if (def.hdwareVersion) device.hardware = def.hdwareVersion;
  if (live.link) device.link = live.link;
  return device;
}

/** Presence from `{ online: { status } }` (1 online, 2 offline); null when absent. */
export function parseOnline(payload: unknown): boolean | null {
  const status = parseOnlineStatus(payload);
  return status === null ? null : status === 1;
}

/** Meross's online status: 1 online, 2 offline, 3 upgrading firmware (0 never online); null when absent. */
export function parseOnlineStatus(payload: unknown): 0 | 1 | 2 | 3 | null {
  const status = record(record(payload)?.online)?.status;
  return status === 0 || status === 1 || status === 2 || status === 3 ? status : null;
}

/** The `{ error: { code } }` of an ERROR reply, which meross-cloud passes on as a success. */
export function replyErrorCode(payload: unknown): string | null {
  const error = record(payload)?.error;
  if (error === undefined) return null;
  const code = record(error)?.code;
  return typeof code === 'number' || typeof code === 'string' ? String(code) : 'unknown';
}
