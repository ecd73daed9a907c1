import { watchKind, type FamilyWatches } from '../../../domain/watches/family-watches.js';
import { HUB_SENSOR_WATCHES, subdeviceOf } from './hub-sensors.watches.js';
import type { HubSubDeviceReading } from './hub.types.js';
import type { Hubs } from './hubs.js';

/** A sensor's battery low, or its temperature out of a range, from the hub's polled readings; and the safety sensors. */
export const HUB_WATCHES: FamilyWatches<HubSubDeviceReading[]> = {
  observe: (event) => (event.type === 'hub' ? event.subdevices : undefined),
  conditions: [
    watchKind<HubSubDeviceReading[], 'batteryBelow'>({
      kind: 'batteryBelow',
      needs: 'hubSensors',
      truth: (condition, hub) => {
        const battery = subdeviceOf(hub, condition.sensor)?.battery;
        return { holds: battery === undefined || battery === null ? undefined : battery < condition.percent, arms: false };
      },
      describe: (c, deviceName) => ({ title: `${c.sensor}: battery low`, message: `${deviceName}: ${c.sensor}'s battery is below ${c.percent} %` }),
      poll: (hubs: Hubs, uuid) => hubs.read(uuid),
    }),
    watchKind<HubSubDeviceReading[], 'temperature'>({
      kind: 'temperature',
      needs: 'hubSensors',
      truth: (condition, hub) => {
        const t = subdeviceOf(hub, condition.sensor)?.temperature;
        if (t === undefined || t === null) return { holds: undefined, arms: false };
        return { holds: condition.above !== undefined ? t > condition.above : t < condition.below!, arms: false };
      },
      describe: (c, deviceName) => {
        const range = c.above !== undefined ? `above ${c.above}` : `below ${c.below}`;
        return { title: `${c.sensor}: ${range} °C`, message: `${deviceName}: ${c.sensor} has been ${range} °C for ${c.minutes} minutes` };
      },
      poll: (hubs: Hubs, uuid) => hubs.read(uuid),
    }),
    ...HUB_SENSOR_WATCHES,
  ],
};
