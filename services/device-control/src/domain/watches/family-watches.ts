import type { Capability } from '../device-cloud.js';
import type { DeviceEvent } from '../device-events.js';
import type { FamilyState } from '../device-family.js';
import type { WatchCondition } from './watch-spec.js';

/** Whether a condition holds for what is known (undefined: not known yet), and whether it arms the watch. */
export interface WatchTruth {
  holds: boolean | undefined;
  arms: boolean;
}

/** One kind of watch condition a device family gives (its `kind` in WatchCondition). */
export interface WatchKind<K = unknown, C extends WatchCondition = WatchCondition> {
  kind: C['kind'];
  /** The capability the watched device must have. */
  needs: Capability;
  truth(condition: C, known: K | undefined): WatchTruth;
  /** Its notification's priority when the watch gives none (default 0): an alarm rings at 2. */
  priority?: number;
  /** The default title and message of its notification. */
  describe(condition: C, deviceName: string): { title: string; message: string };
  /** Whether a new episode waits until the condition arms it (a cycle ran); default never. */
  needsArming?(condition: C): boolean;
  /** The read a watch with `pollSeconds` makes, on the family's state; its result arrives as a device event. */
  poll?(family: FamilyState, uuid: string): Promise<unknown>;
}

/** A device family's watch conditions, and what it keeps of a device's events to decide them. */
export interface FamilyWatches<K = unknown> {
  /** Folds an event into what is known of its device; undefined when the event is not the family's. */
  observe(event: DeviceEvent, known: K | undefined): K | undefined;
  conditions: ReadonlyArray<WatchKind<K>>;
}

/** A family's watch condition kind, typed by its kind. */
export function watchKind<K, T extends WatchCondition['kind']>(kind: WatchKind<K, Extract<WatchCondition, { kind: T }>>): WatchKind<K> {
  return kind as unknown as WatchKind<K>;
}
