import { watchKind, type FamilyWatches } from '../../../domain/watches/family-watches.js';
import type { GarageDoorState } from './garage-door.types.js';

/** A door left open: follows the doors' events (pushes and commands: free). */
export const GARAGE_DOOR_WATCHES: FamilyWatches<Map<number, GarageDoorState>> = {
  observe: (event, doors) => (event.type === 'garageDoor' ? new Map(doors).set(event.channel, event.state) : undefined),
  conditions: [
    watchKind<Map<number, GarageDoorState>, 'doorOpen'>({
      kind: 'doorOpen',
      needs: 'garageDoor',
      truth: (condition, doors) => {
        const door = doors?.get(condition.channel);
        return { holds: door === undefined ? undefined : door !== 'closed', arms: false };
      },
      describe: (c, deviceName) => ({ title: `${deviceName} is open`, message: `Open for more than ${c.minutes} minutes` }),
    }),
  ],
};
