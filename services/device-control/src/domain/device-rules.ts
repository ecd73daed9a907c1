import { AppError } from '@homeops/common';
import { describeNotControllable, type Device } from './device.js';

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

/** Throws 'Device not controllable' / 'Check synchronization' (the spec's exact texts), with the reason as detail. */
export function assertControllable(device: Device): void {
  const reason = describeNotControllable(device);
  if (reason === undefined) return;
  throw new AppError('DEVICE_NOT_CONTROLLABLE', undefined, { details: [{ path: 'device', message: reason }] });
}
