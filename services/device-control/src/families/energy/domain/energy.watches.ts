import { watchKind, type FamilyWatches } from '../../../domain/watches/family-watches.js';
import type { Energy } from './energy.js';

/** A cycle done: power below a level for a while (after having run above another), from polled readings. */
export const ENERGY_WATCHES: FamilyWatches<number> = {
  observe: (event) => (event.type === 'power' ? event.power : undefined),
  conditions: [
    watchKind<number, 'powerBelow'>({
      kind: 'powerBelow',
      needs: 'energy',
      truth: (condition, power) => {
        if (power === undefined) return { holds: undefined, arms: false };
        return { holds: power < condition.watts, arms: condition.afterAbove !== undefined && power > condition.afterAbove };
      },
      describe: (c, deviceName) => ({
        title: `${deviceName} is done`,
        message: `Below ${c.watts} W for ${c.minutes} minutes${c.afterAbove === undefined ? '' : ` after running above ${c.afterAbove} W`}`,
      }),
      needsArming: (condition) => condition.afterAbove !== undefined,
      poll: (energy: Energy, uuid) => energy.readPower(uuid),
    }),
  ],
};
