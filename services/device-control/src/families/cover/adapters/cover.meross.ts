import { AppError } from '@homeops/common';
import { channelOf, entries, record } from '../../../adapters/meross/meross-abilities.js';
import { get, set, type MerossFamily } from '../../../adapters/meross/meross-family.js';
import type { CloudEvent } from '../../../domain/device-cloud.js';
import type { CoverMotion } from '../domain/cover.types.js';

const POSITION = 'Appliance.RollerShutter.Position';
const STATE = 'Appliance.RollerShutter.State';

/** Positions from Appliance.RollerShutter.Position (`{ position: [{ channel, position }] }`), 0 closed … 100 open. */
export function parseCoverPositions(payload: unknown): Array<{ channel: number; position: number }> {
  return entries(record(payload)?.position).flatMap((e) =>
    typeof e.position === 'number' && e.position >= 0 && e.position <= 100 ? [{ channel: channelOf(e), position: Math.round(e.position) }] : [],
  );
}

const MOTIONS: Record<number, CoverMotion> = { 0: 'idle', 1: 'opening', 2: 'closing' };

/** Motion from Appliance.RollerShutter.State (`{ state: [{ channel, state }] }`: 0 idle, 1 opening, 2 closing). */
export function parseCoverMotions(payload: unknown): Array<{ channel: number; motion: CoverMotion }> {
  return entries(record(payload)?.state).flatMap((e) => {
    const motion = typeof e.state === 'number' ? MOTIONS[e.state] : undefined;
    return motion ? [{ channel: channelOf(e), motion }] : [];
  });
}

/** Covers take any position from firmware 6.6.6 on (meross_lan's observation); older ones only run fully. */
export function coverTakesPositions(firmware: string | undefined): boolean {
  const [major = 0, minor = 0, patch = 0] = (firmware ?? '').split('.').map((n) => Number.parseInt(n, 10) || 0);
  return major * 1_000_000 + minor * 1_000 + patch >= 6_006_006;
}

function coverEvents(uuid: string, namespace: string, payload: unknown, changed: (key: string, value: unknown) => boolean = () => true): CloudEvent[] {
  if (namespace === POSITION) {
    return parseCoverPositions(payload).flatMap(({ channel, position }) =>
      changed(`cover position ${channel}`, position) ? [{ type: 'cover', uuid, channel, position, source: 'push' } as const] : [],
    );
  }
  return parseCoverMotions(payload).flatMap(({ channel, motion }) =>
    changed(`cover motion ${channel}`, motion) ? [{ type: 'cover', uuid, channel, motion, source: 'push' } as const] : [],
  );
}

/** Roller shutters and blinds (mrs100) over Meross: Appliance.RollerShutter.Position and .State. */
export const COVER_MEROSS: MerossFamily = {
  capability: 'cover',
  declares: (abilities) => abilities.has(STATE) || abilities.has(POSITION),
  refusesOthers: 'is a cover',
  types: { prefixes: ['mrs'], alone: true },
  describe(device, def) {
    if (coverTakesPositions(def.fmwareVersion)) device.coverPositioning = true;
  },
  push(entry, namespace, payload, access) {
    if (namespace !== POSITION && namespace !== STATE) return false;
    for (const event of coverEvents(entry.def.uuid, namespace, payload)) access.emit(event);
    return true;
  },
  pollRequests: [get(POSITION), get(STATE)],
  poll: (entry, answers, changed) => ({
    events: [POSITION, STATE].flatMap((namespace) => coverEvents(entry.def.uuid, namespace, answers.get(namespace), changed)),
  }),
  port: (access) => ({
    async readCovers(uuid) {
      const entry = access.reachable(uuid);
      await access.assertCapability(entry, 'cover', 'Appliance.RollerShutter.*');
      const positions = parseCoverPositions(await access.send(entry, `reading ${POSITION}`, get(POSITION)));
      const motions = parseCoverMotions(await access.send(entry, `reading ${STATE}`, get(STATE)));
      if (positions.length === 0) throw new AppError('CLOUD_ERROR', `Device ${uuid} sent an unreadable ${POSITION} answer`);
      return positions.map(({ channel, position }) => ({ channel, position, motion: motions.find((m) => m.channel === channel)?.motion ?? 'idle' }));
    },
    async moveCover(uuid, channel, target) {
      const entry = access.reachable(uuid);
      await access.assertCapability(entry, 'cover', 'Appliance.RollerShutter.*');
      // Meross's position -1 stops the cover where it is.
      const position = target === 'stop' ? -1 : target;
      await access.send(
        entry,
        target === 'stop' ? `stopping cover ${channel}` : `moving cover ${channel} to ${target}`,
        set(POSITION, { position: { position, channel } }),
      );
    },
  }),
};
