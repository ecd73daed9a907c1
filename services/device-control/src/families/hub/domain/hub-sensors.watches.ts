import { watchKind, type WatchKind } from '../../../domain/watches/family-watches.js';
import type { HubSubDeviceReading } from './hub.types.js';

/** The sensor a condition names, by id or by name. */
export function subdeviceOf(hub: HubSubDeviceReading[] | undefined, sensor: string): HubSubDeviceReading | undefined {
  return hub?.find((s) => s.id === sensor || s.name === sensor);
}

const known = (value: boolean | null | undefined) => ({ holds: value === null || value === undefined ? undefined : value, arms: false });

/**
 * The hub's safety sensors as alarms (priority 2 unless the watch says otherwise), from their pushes (free): water at a leak sensor, a smoke alarm ringing, a door
 * or window open for `seconds`. A muted, tested or faulty smoke alarm neither starts nor ends an episode: someone is
 * at the alarm, or it cannot tell; only its all-clear ends one.
 */
export const HUB_SENSOR_WATCHES: ReadonlyArray<WatchKind<HubSubDeviceReading[]>> = [
  watchKind<HubSubDeviceReading[], 'leak'>({
    kind: 'leak',
    needs: 'hubSensors',
    priority: 2,
    truth: (condition, hub) => known(subdeviceOf(hub, condition.sensor)?.leak),
    describe: (c, deviceName) => ({ title: `${c.sensor}: water leak`, message: `${deviceName}: ${c.sensor} found water` }),
  }),
  watchKind<HubSubDeviceReading[], 'smoke'>({
    kind: 'smoke',
    needs: 'hubSensors',
    priority: 2,
    truth: (condition, hub) => {
      const smoke = subdeviceOf(hub, condition.sensor)?.smoke;
      return known(smoke === 'alarm' ? true : smoke === 'clear' ? false : undefined);
    },
    describe: (c, deviceName) => ({ title: `${c.sensor}: smoke alarm`, message: `${deviceName}: ${c.sensor} detects smoke or heat` }),
  }),
  watchKind<HubSubDeviceReading[], 'open'>({
    kind: 'open',
    needs: 'hubSensors',
    priority: 2,
    truth: (condition, hub) => known(subdeviceOf(hub, condition.sensor)?.open),
    describe: (c, deviceName) => ({ title: `${c.sensor} is open`, message: `${deviceName}: ${c.sensor} has been open for more than ${c.seconds} seconds` }),
  }),
];
