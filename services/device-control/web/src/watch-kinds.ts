import type { SubDevice } from './hub-panel.js';
import type { Device, WatchBody } from './types.js';

type Condition = WatchBody['condition'];

/** A condition of PUT /watches, by its `kind`. */
export type WatchKind = Condition['kind'];

/** What the form asks for one condition. */
export interface KindSpec {
  text: string;
  /** The capability a device needs for it (the service refuses others). */
  needs?: Device['capabilities'][number];
  /** Conditions on a device behind a hub: which of the hub's devices fit, and what to call them when none does. */
  sensors?: { fits(d: SubDevice): boolean; noun: string };
  /** The service's own default for the condition (docs/watches.md); the form starts there. */
  priority?: number;
  /** Shows the Minutes field. */
  minutes?: true;
}

/** The conditions this form adds, in the order it offers them. */
export const KINDS: Record<WatchKind, KindSpec> = {
  doorOpen: { text: 'Door open', needs: 'garageDoor', minutes: true },
  offline: { text: 'Offline', minutes: true },
  powerBelow: { text: 'Power below (washer done)', needs: 'energy', minutes: true },
  leak: { text: 'Water leak', needs: 'hubSensors', sensors: { fits: (d) => d.kind === 'leak', noun: 'leak sensor' }, priority: 2 },
  smoke: { text: 'Smoke alarm', needs: 'hubSensors', sensors: { fits: (d) => d.kind === 'smoke', noun: 'smoke alarm' }, priority: 2 },
  open: { text: 'Door/window open for', needs: 'hubSensors', sensors: { fits: (d) => d.kind === 'contact', noun: 'door/window sensor' }, priority: 2 },
  temperature: {
    text: 'Temperature',
    needs: 'hubSensors',
    sensors: { fits: (d) => d.kind === 'sensor', noun: 'temperature sensor' },
    minutes: true,
  },
  batteryBelow: { text: 'Battery low', needs: 'hubSensors', sensors: { fits: (d) => d.battery !== null, noun: 'device with a battery' } },
};

/** The priority the form starts at for a condition: the service's default for it. */
export const defaultPriority = (kind: WatchKind): number => KINDS[kind].priority ?? 0;

/** The condition of the form's fields (`field` answers a field's trimmed text, '' when absent). */
export function conditionOf(kind: WatchKind, field: (name: string) => string): Condition {
  const number = (name: string) => Number(field(name));
  const [device, sensor, minutes] = [field('device'), field('sensor'), number('minutes')];
  switch (kind) {
    case 'doorOpen':
    case 'offline':
      return { kind, device, minutes };
    case 'powerBelow':
      return { kind, device, minutes, watts: number('watts'), ...(field('afterAbove') !== '' ? { afterAbove: number('afterAbove') } : {}) };
    case 'leak':
    case 'smoke':
      return { kind, device, sensor };
    case 'open':
      return { kind, device, sensor, seconds: number('seconds') };
    case 'temperature':
      return field('bound') === 'below'
        ? { kind, device, sensor, minutes, below: number('celsius') }
        : { kind, device, sensor, minutes, above: number('celsius') };
    case 'batteryBelow':
      return { kind, device, sensor, percent: number('percent') };
  }
}
