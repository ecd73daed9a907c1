import type { EventStreams } from './event-streams.js';
import type { AppMetrics } from '@homeops/common';
import type { CloudSessionState, DeviceCloud } from '../domain/device-cloud.js';
import type { DeviceService } from '../domain/device.service.js';

const SESSION_STATES: readonly CloudSessionState[] = ['connecting', 'connected', 'backing-off', 'locked-out', 'needs-mfa', 'failed'];

/** What the device-control metrics read, at scrape time. */
export interface DeviceMetricsDeps {
  cloud: DeviceCloud;
  devices: DeviceService;
  streams: EventStreams;
  now: () => number;
}

/**
 * Registers device-control's own metrics on `metrics`: the gauges read `/health`'s sources when scraped (no I/O);
 * labels are fixed sets (windows, message ways, session states, error codes), never a device.
 */
export function registerDeviceMetrics(metrics: AppMetrics, deps: DeviceMetricsDeps): void {
  const { cloud, devices, streams, now } = deps;
  metrics.gauge({
    name: 'homeops_cloud_budget_used',
    help: 'Cloud messages sent (and admitted, not yet finished) in the sliding window',
    labelNames: ['window'],
    collect() {
      for (const w of devices.health().budget.windows) this.set({ window: w.window }, w.used);
    },
  });
  metrics.gauge({
    name: 'homeops_cloud_budget_limit',
    help: 'Cloud messages the window allows (CLOUD_MAX_MESSAGES_PER_HOUR, CLOUD_MAX_MESSAGES_PER_MINUTE)',
    labelNames: ['window'],
    collect() {
      for (const w of devices.health().budget.windows) this.set({ window: w.window }, w.limit);
    },
  });
  metrics.counter({
    name: 'homeops_cloud_messages_sent_total',
    help: 'Messages sent since the start, by way: api and mqtt reach the cloud and count against the budget, lan goes to a device directly',
    labelNames: ['via'],
    collect() {
      const { sent } = devices.health().budget;
      this.reset();
      for (const via of ['api', 'mqtt', 'lan'] as const) this.inc({ via }, sent[via]);
    },
  });
  metrics.gauge({
    name: 'homeops_cloud_session_state',
    help: 'The cloud session state: 1 for the current one, 0 for the others',
    labelNames: ['state'],
    collect() {
      const current = cloud.status().state;
      for (const state of SESSION_STATES) this.set({ state }, state === current ? 1 : 0);
    },
  });
  metrics.gauge({
    name: 'homeops_cloud_lockout_seconds',
    help: 'Seconds until the next login is allowed while the account is locked out; 0 otherwise',
    collect() {
      const { state, retryAt } = cloud.status();
      const until = state === 'locked-out' && retryAt !== null ? Date.parse(retryAt) : NaN;
      this.set(Number.isNaN(until) ? 0 : Math.max(0, (until - now()) / 1000));
    },
  });
  metrics.gauge({
    name: 'homeops_devices',
    help: 'Devices of the account, and how many of them are online',
    labelNames: ['state'],
    collect() {
      const counts = devices.health().devices;
      this.set({ state: 'total' }, counts.total);
      this.set({ state: 'online' }, counts.online);
    },
  });
  metrics.gauge({
    name: 'homeops_event_streams',
    help: 'Open GET /events streams',
    collect() {
      this.set(streams.size);
    },
  });
}
