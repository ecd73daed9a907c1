import type { Capability, CloudEvent } from '../../domain/device-cloud.js';
import type { DeviceEntry } from './meross-device-entry.js';
import { get, type MerossFamily } from './meross-family.js';
import type { DeviceRequest } from './meross-messenger.js';
import type { ChannelReading } from './meross-payloads.js';

/** What a poll reads of a device: System.All always (channel states, what its families report there, the address), then what each of its families adds. */
export function pollRequestsOf(families: readonly MerossFamily[], capabilities: Capability[], entry: DeviceEntry): DeviceRequest[] {
  const requestsOf = ({ pollRequests = [] }: MerossFamily) => (typeof pollRequests === 'function' ? pollRequests(entry) : pollRequests);
  return [get('Appliance.System.All'), ...families.filter((f) => capabilities.includes(f.capability)).flatMap(requestsOf)];
}

/** What a poll read, as the events a push would have brought. */
export interface PollResult {
  channels: ChannelReading[];
  /** The families' events, each only when it differs from what the last poll told. */
  events: CloudEvent[];
}

/** Turns a poll's answers into events; remembers what it told in `entry.polled`, so an unchanged device says nothing. */
export function pollResultOf(families: readonly MerossFamily[], entry: DeviceEntry, answers: Map<string, unknown>): PollResult {
  const changed = (key: string, value: unknown) => {
    const text = JSON.stringify(value);
    if (entry.polled.get(key) === text) return false;
    entry.polled.set(key, text);
    return true;
  };
  const result: PollResult = { channels: [], events: [] };
  for (const family of families) {
    const told = family.poll?.(entry, answers, changed);
    result.channels.push(...(told?.channels ?? []));
    result.events.push(...(told?.events ?? []));
  }
  return result;
}
