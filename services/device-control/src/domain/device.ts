import type { Capability, CloudChannel, CloudDevice } from './device-cloud.js';

/** One channel with what the service knows of its state: `null` while unknown. */
export interface ChannelState extends CloudChannel {
  on: boolean | null;
}

/** A device as the service knows it: the cloud's description plus channel states. */
export interface Device extends Omit<CloudDevice, 'channels'> {
  channels: ChannelState[];
  /** Last time the device was seen online (sync, push or command acknowledgement), ISO time. */
  lastSeenAt: string | null;
}

/** A device accepts commands only when it is online, its command channel is up and it can switch. */
export function isControllable(device: Pick<Device, 'online' | 'commandReady' | 'switchable'>): boolean {
  return device.online && device.commandReady && device.switchable;
}

/** A deep copy safe to hand out of the domain. */
export function copyDevice(device: Device): Device {
  return { ...device, capabilities: [...device.capabilities], channels: device.channels.map((c) => ({ ...c })) };
}

/** Where a device stands: online, offline, or installing a firmware update. */
export type DeviceStatus = 'online' | 'offline' | 'upgrading';

/** A device as callers see it: with `controllable` and `status` worked out. */
export interface DeviceView extends Device {
  controllable: boolean;
  status: DeviceStatus;
}

/** The caller-facing copy of a device. */
export function toDeviceView(device: Device): DeviceView {
  const status: DeviceStatus = device.upgrading ? 'upgrading' : device.online ? 'online' : 'offline';
  return { ...copyDevice(device), controllable: isControllable(device), status };
}

/** Why a device cannot take a command right now (presence, command channel), or undefined when it can. */
export function describeUnreachable(device: Device): string | undefined {
  if (device.upgrading) return 'the device is installing a firmware update; it comes back by itself';
  if (!device.online) return 'the device is offline';
  if (!device.commandReady) return 'the command channel to the device is not connected yet';
  return undefined;
}

/** Why a device refuses switch commands, in words, or undefined when it accepts them. */
export function describeNotControllable(device: Device): string | undefined {
  return describeUnreachable(device) ?? (device.switchable ? undefined : notASwitch(device.capabilities));
}

function notASwitch(capabilities: Capability[]): string {
  if (capabilities.includes('garageDoor')) return 'the device is a garage door opener; it is never sent a switch command';
  if (capabilities.includes('cover')) return 'the device is a cover (roller shutter); it is never sent a switch command';
  return 'the device does not support switching';
}
