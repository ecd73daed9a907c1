import type { AppMetrics } from '@homeops/common';
import type { DeviceService } from '../../../domain/device.service.js';
import type { HubSubDeviceReading } from '../domain/hub.types.js';
import { HUBS } from '../domain/hubs.js';

/** Each safety sensor kind and the states it is counted under (`unknown` until its hub was read). */
export const SENSOR_STATES = {
  leak: ['wet', 'dry', 'unknown'],
  smoke: ['clear', 'alarm', 'muted', 'test', 'fault', 'unknown'],
  contact: ['open', 'closed', 'unknown'],
} as const;

type SensorKind = keyof typeof SENSOR_STATES;

function stateOf(sub: HubSubDeviceReading & { kind: SensorKind }): string {
  if (sub.kind === 'leak') return sub.leak === null ? 'unknown' : sub.leak ? 'wet' : 'dry';
  if (sub.kind === 'smoke') return sub.smoke ?? 'unknown';
  return sub.open === null ? 'unknown' : sub.open ? 'open' : 'closed';
}

/**
 * `homeops_hub_sensors{kind, state}`: how many leak, smoke and door/window sensors behind the hubs are in each state,
 * as last read or pushed (alert on `{kind="leak",state="wet"} > 0`). Counted, not labelled by sensor: the labels stay
 * a fixed set, as every metric's here.
 */
export function registerHubMetrics(metrics: AppMetrics, devices: DeviceService): void {
  metrics.gauge({
    name: 'homeops_hub_sensors',
    help: 'Leak, smoke and door/window sensors behind the hubs in each state, as last read or pushed',
    labelNames: ['kind', 'state'],
    collect() {
      const counts = new Map<string, number>();
      for (const sub of devices.use(HUBS).known()) {
        if (sub.kind in SENSOR_STATES) {
          const key = `${sub.kind} ${stateOf(sub as HubSubDeviceReading & { kind: SensorKind })}`;
          counts.set(key, (counts.get(key) ?? 0) + 1);
        }
      }
      for (const [kind, states] of Object.entries(SENSOR_STATES)) {
        for (const state of states) this.set({ kind, state }, counts.get(`${kind} ${state}`) ?? 0);
      }
    },
  });
}
