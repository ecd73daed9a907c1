import { AppError } from '@homeops/common';
import { record } from '../../../adapters/meross/meross-abilities.js';
import { get, set, type MerossFamily } from '../../../adapters/meross/meross-family.js';
import type { CloudEvent } from '../../../domain/device-cloud.js';
import type { GarageDoorReading } from '../domain/garage-door.types.js';

const STATE = 'Appliance.GarageDoor.State';

function doorReadings(value: unknown): GarageDoorReading[] {
  const list = Array.isArray(value) ? value : [value];
  return list.flatMap((entry) => {
    const e = record(entry);
    if (!e || (e.open !== 0 && e.open !== 1)) return [];
    const channel = typeof e.channel === 'number' && Number.isInteger(e.channel) ? e.channel : 0;
    return [{ channel, state: e.open === 1 ? 'open' : 'closed' } satisfies GarageDoorReading];
  });
}

/** Doors from a GETACK or a PUSH of Appliance.GarageDoor.State (`{ state: [{ channel, open }] }`). */
export function parseGarageDoors(payload: unknown): GarageDoorReading[] {
  return doorReadings(record(payload)?.state);
}

/**
 * The SETACK of an open or close: `open` is where the door was when the command came. Where that differs from what
 * was asked (and `execute` is not 0), the door now moves; otherwise it already is there.
 */
export function parseGarageDoorAnswer(payload: unknown, channel: number, open: boolean): GarageDoorReading | null {
  const state = record(record(payload)?.state);
  if (!state || (state.open !== 0 && state.open !== 1)) return null;
  const was = state.open === 1;
  if (was !== open && state.execute !== 0) return { channel, state: open ? 'opening' : 'closing' };
  return { channel, state: was ? 'open' : 'closed' };
}

/** Garage door openers (msg100, msg200) over Meross: Appliance.GarageDoor.State, read, set and pushed. */
export const GARAGE_DOOR_MEROSS: MerossFamily = {
  capability: 'garageDoor',
  declares: (abilities) => abilities.has(STATE),
  refusesOthers: 'is a garage door opener',
  types: { prefixes: ['msg'], alone: true },
  push(entry, namespace, payload, access) {
    if (namespace !== STATE) return false;
    const doors = parseGarageDoors(payload);
    if (doors.length > 0) access.setOnline(entry, true);
    for (const { channel, state } of doors) access.emit({ type: 'garageDoor', uuid: entry.def.uuid, channel, state, source: 'push' });
    return true;
  },
  poll(entry, answers, changed) {
    const digest = (answers.get('Appliance.System.All') as { all?: { digest?: { garageDoor?: unknown } } } | undefined)?.all?.digest;
    const events: CloudEvent[] = [];
    for (const { channel, state } of parseGarageDoors({ state: digest?.garageDoor })) {
      if (changed(`door ${channel}`, state)) events.push({ type: 'garageDoor', uuid: entry.def.uuid, channel, state, source: 'read' });
    }
    return { events };
  },
  port: (access) => ({
    async readGarageDoors(uuid) {
      const entry = access.reachable(uuid);
      await access.assertCapability(entry, 'garageDoor', STATE);
      const doors = parseGarageDoors(await access.send(entry, `reading ${STATE}`, get(STATE)));
      if (doors.length === 0) throw new AppError('CLOUD_ERROR', `Device ${uuid} sent an unreadable ${STATE} answer`);
      return doors;
    },
    async setGarageDoor(uuid, channel, open) {
      const entry = access.reachable(uuid);
      await access.assertCapability(entry, 'garageDoor', STATE);
      const payload = await access.send(
        entry,
        `${open ? 'opening' : 'closing'} garage door ${channel}`,
        set(STATE, { state: { channel, open: open ? 1 : 0, uuid } }),
      );
      const answer = parseGarageDoorAnswer(payload, channel, open);
      if (!answer) throw new AppError('CLOUD_ERROR', `Device ${uuid} sent an unreadable answer to the garage door command`);
      return answer;
    },
  }),
};
