import { AppError } from '@homeops/common/core';
import type { Capability } from './device-cloud.js';
import { describeUnreachable, type Device } from './device.js';

/** The device, or DEVICE_NOT_FOUND naming the uuid (the default solution points to POST /devices/sync). */
export function assertKnownDevice(device: Device | undefined, uuid: string): Device {
  if (!device) throw new AppError('DEVICE_NOT_FOUND', `Device ${uuid} not found`);
  return device;
}

/** Channels are the device's own; anything else is a bad `channel` field. */
export function assertChannelOf(device: Device, channel: number): void {
  if (device.channels.some((c) => c.channel === channel)) return;
  const valid = device.channels.map((c) => c.channel).join(', ');
  throw new AppError('VALIDATION_FAILED', `Invalid channel: ${channel} is not a channel of device ${device.uuid}`, {
    details: [{ path: 'channel', message: `must be one of the device's channels: ${valid}` }],
  });
}

/** 409 unless the device has the capability an action needs, naming what the device is. */
export function assertCapable(device: Device, capability: Capability, action: string): void {
  if (device.capabilities.includes(capability)) return;
  throw new AppError('DEVICE_NOT_CONTROLLABLE', `Device ${device.uuid} cannot ${action}`, {
    solution: `It has these capabilities: ${device.capabilities.join(', ') || 'none known yet'}; see GET /devices/${device.uuid}`,
    details: [{ path: 'device', message: `the device has no ${capability} capability` }],
  });
}

/** 409 while the device cannot take any command (offline, upgrading, command channel down). */
export function assertReachable(device: Device): void {
  const reason = describeUnreachable(device);
  if (reason === undefined) return;
  throw new AppError('DEVICE_NOT_CONTROLLABLE', undefined, { details: [{ path: 'device', message: reason }] });
}
