import type { Capability, CloudEvent } from '../../domain/device-cloud.js';
import { parseCoverMotions, parseCoverPositions, parseGarageDoors, parseHub, parseHubPush, parseLights, subDeviceNames } from './meross-abilities.js';
import type { DeviceEntry } from './meross-device-entry.js';
import type { DeviceRequest } from './meross-messenger.js';
import { parseSystemAll, type ChannelReading } from './meross-payloads.js';

/**
 * What a poll reads of a device, by family: System.All always (switch states, doors, lights, the address), a cover's
 * position and motion, a hub's valves, sensors and batteries. Energy is never polled (read when asked).
 */
export function pollRequestsOf(capabilities: Capability[]): DeviceRequest[] {
  const get = (namespace: string, payload: unknown = {}): DeviceRequest => ({ method: 'GET', namespace, payload });
  const requests = [get('Appliance.System.All')];
  if (capabilities.includes('cover')) requests.push(get('Appliance.RollerShutter.Position'), get('Appliance.RollerShutter.State'));
  if (capabilities.includes('hubSensors')) {
    requests.push(get('Appliance.Hub.Mts100.All', { all: [] }), get('Appliance.Hub.Sensor.All', { all: [] }), get('Appliance.Hub.Battery', { battery: [] }));
  }
  return requests;
}

/** What a poll read, as the events a push would have brought. */
export interface PollResult {
  channels: ChannelReading[];
  /** Door, cover, light and hub events, each only when it differs from what the last poll told. */
  events: CloudEvent[];
}

/** Turns a poll's answers into events; remembers what it told in `entry.polled`, so an unchanged device says nothing. */
export function pollResultOf(entry: DeviceEntry, answers: Map<string, unknown>): PollResult {
  const uuid = entry.def.uuid;
  const events: CloudEvent[] = [];
  const changed = (key: string, value: unknown) => {
    const text = JSON.stringify(value);
    if (entry.polled.get(key) === text) return false;
    entry.polled.set(key, text);
    return true;
  };
  const all = answers.get('Appliance.System.All');
  const digest = (all as { all?: { digest?: { garageDoor?: unknown; light?: unknown } } } | undefined)?.all?.digest;
  for (const { channel, state } of parseGarageDoors({ state: digest?.garageDoor })) {
    if (changed(`door ${channel}`, state)) events.push({ type: 'garageDoor', uuid, channel, state, source: 'read' });
  }
  for (const light of parseLights(digest?.light)) {
    if (changed(`light ${light.channel}`, light)) events.push({ type: 'light', uuid, source: 'push', ...light });
  }
  for (const { channel, position } of parseCoverPositions(answers.get('Appliance.RollerShutter.Position'))) {
    if (changed(`cover position ${channel}`, position)) events.push({ type: 'cover', uuid, channel, position, source: 'push' });
  }
  for (const { channel, motion } of parseCoverMotions(answers.get('Appliance.RollerShutter.State'))) {
    if (changed(`cover motion ${channel}`, motion)) events.push({ type: 'cover', uuid, channel, motion, source: 'push' });
  }
  if (answers.has('Appliance.Hub.Mts100.All') || answers.has('Appliance.Hub.Sensor.All')) {
    const names = subDeviceNames(entry.object?.subDeviceList ?? entry.subDevices);
    for (const sub of parseHub(answers.get('Appliance.Hub.Mts100.All'), answers.get('Appliance.Hub.Sensor.All'), answers.get('Appliance.Hub.Battery'), names)) {
      const { id, name: _name, kind: _kind, model: _model, ...change } = sub;
      if (changed(`hub ${id}`, change)) events.push({ type: 'hubDevice', uuid, id, change, source: 'push' });
    }
  } else if (answers.has('Appliance.Hub.Battery')) {
    for (const { id, change } of parseHubPush('Appliance.Hub.Battery', answers.get('Appliance.Hub.Battery')))
      events.push({ type: 'hubDevice', uuid, id, change, source: 'push' });
  }
  return { channels: parseSystemAll(all)?.channels ?? [], events };
}
