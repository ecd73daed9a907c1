import type { CloudChannel, CloudDevice, DeviceLink, FamilyDeviceFlags } from './device-cloud.js';

/** Where a device stands: online, offline, or installing a firmware update (not online, back by itself). */
export type DeviceStatus = 'online' | 'offline' | 'upgrading';

/** The presence the cloud reports (`online` and an `upgrading` flag) as one value. */
export function presenceOf(cloud: Pick<CloudDevice, 'online' | 'upgrading'>): DeviceStatus {
  return cloud.upgrading ? 'upgrading' : cloud.online ? 'online' : 'offline';
}

/** One channel with what the service knows of its state: `null` while unknown. */
export interface ChannelState extends CloudChannel {
  on: boolean | null;
}

/** How a device is reached: the backend's word, or, from a backend without a LAN transport, the cloud while its command channel is up. */
export function linkOf(cloud: Pick<CloudDevice, 'commandReady' | 'link'>): DeviceLink {
  if (cloud.link) return { ...cloud.link };
  return { transport: cloud.commandReady ? 'cloud' : 'unreachable', address: null, addressSource: null, pushes: cloud.commandReady, lanProblem: null };
}

/** A device as the service knows it: the cloud's description plus channel states, its presence as one value. */
export interface Device extends Omit<CloudDevice, 'channels' | 'online' | 'upgrading' | 'link'> {
  presence: DeviceStatus;
  channels: ChannelState[];
  link: DeviceLink;
  /** Last time the device was seen online (sync, push or command acknowledgement), ISO time. */
  lastSeenAt: string | null;
}

/** A device accepts commands only when it is online, its command channel is up and it has the control flag (if any). */
export function isControllable(device: Device, controlFlag: keyof FamilyDeviceFlags | undefined): boolean {
  return device.presence === 'online' && device.commandReady && (controlFlag === undefined || device[controlFlag] === true);
}

/** A deep copy safe to hand out of the domain. */
export function copyDevice(device: Device): Device {
  return { ...device, capabilities: [...device.capabilities], channels: device.channels.map((c) => ({ ...c })), link: { ...device.link } };
}

/** A device as it goes out (the `device` event, and under the view): presence as `online` and `upgrading` (only when true). */
export interface DeviceRecord extends Omit<Device, 'presence'> {
  online: boolean;
  upgrading?: boolean;
}

/** The outgoing copy of a device, with its presence derived as before. */
export function toDeviceRecord(device: Device): DeviceRecord {
  const { presence, uuid, name, type, ...rest } = copyDevice(device);
  return { uuid, name, type, online: presence === 'online', ...rest, ...(presence === 'upgrading' ? { upgrading: true } : {}) };
}

/** A device as callers see it: with `controllable` and `status` worked out. */
export interface DeviceView extends DeviceRecord {
  controllable: boolean;
  status: DeviceStatus;
}

/** The caller-facing copy of a device; `controllable` as the registry tells it. */
export function toDeviceView(device: Device, controllable: boolean): DeviceView {
  return { ...toDeviceRecord(device), controllable, status: device.presence };
}

/** Why a device cannot take a command right now (presence, command channel), or undefined when it can. */
export function describeUnreachable(device: Device): string | undefined {
  if (device.presence === 'upgrading') return 'the device is installing a firmware update; it comes back by itself';
  if (device.presence === 'offline') return 'the device is offline';
  if (!device.commandReady) {
    const { address, lanProblem } = device.link;
    if (address === null) return 'the command channel to the device is not connected yet';
    return `neither the LAN (${address}${lanProblem ? `: ${lanProblem}` : ''}) nor the cloud reaches the device now`;
  }
  return undefined;
}
