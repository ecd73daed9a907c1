import { createLogger, EventStreamHub, systemClock, type Clock, type EventStreamLimits, type Logger } from '@homeops/common';
import type { Express } from 'express';
import { createApp } from '../../src/app.js';
import { InMemoryWatchStore } from '../../src/adapters/watches/file-watch-store.js';
import { DeviceService, type DeviceServiceOptions } from '../../src/domain/device.service.js';
import { DeviceWatches, type WatchSignal } from '../../src/domain/watches/device-watches.js';
import { FakeDeviceCloud } from '../fakes/fake-device-cloud.js';
import { DOMAIN_FAMILIES } from '../../src/families/index.js';

/** The app under test and the handles a test needs. */
export interface TestApp {
  app: Express;
  cloud: FakeDeviceCloud;
  devices: DeviceService;
  streams: EventStreamHub;
  /** What the app's watches sent (to a recording notifier). */
  watchSignals: WatchSignal[];
  close(): Promise<void>;
}

/** What a test may change from the defaults. */
export interface TestAppOptions {
  cloud?: FakeDeviceCloud;
  service?: Partial<DeviceServiceOptions>;
  apiKey?: string;
  /** Wrong keys an address may send per minute (default: the service's default). */
  authFailuresPerMinute?: number;
  streamLimits?: EventStreamLimits;
  clock?: Clock;
  heartbeatMs?: number;
  /** Silent unless given (tests that inspect the log pass a capturing one). */
  logger?: Logger;
  /** Run the startup sync (default true). */
  start?: boolean;
}

/** The real app and device service over a fake cloud, started like main does; short timeouts, no periodic sync. */
export async function buildTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const cloud = options.cloud ?? FakeDeviceCloud.withDefaults();
  const logger = options.logger ?? createLogger({ service: 'test', level: 'silent' });
  // The streams' heartbeats run on the app's clock, as in main.
  const streams = new EventStreamHub({
    heartbeatMs: options.heartbeatMs ?? 60_000,
    ...options.streamLimits,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const devices = new DeviceService(
    cloud,
    {
      families: DOMAIN_FAMILIES,
      maxMessagesPerMinute: 100,
      maxMessagesPerHour: 10_000,
      syncIntervalSeconds: 0,
      requestTimeoutMs: 200,
      commandTimeoutMs: 100,
      backgroundStateReads: false,
      ...options.service,
    },
    logger,
    options.clock,
  );
  const watchSignals: WatchSignal[] = [];
  const watches = new DeviceWatches({
    devices,
    notifier: { send: (signal) => Promise.resolve(void watchSignals.push(signal)) },
    store: new InMemoryWatchStore(),
    clock: options.clock ?? systemClock,
    logger,
  });
  const app = createApp(
    { logger, cloud, devices, streams, watches, ...(options.clock ? { clock: options.clock } : {}) },
    {
      API_KEY: options.apiKey,
      ...(options.authFailuresPerMinute === undefined ? {} : { AUTH_MAX_FAILURES_PER_MINUTE: options.authFailuresPerMinute }),
    },
  );
  if (options.start !== false) await devices.start();
  watches.start();
  return {
    app,
    cloud,
    devices,
    streams,
    watchSignals,
    close: async () => {
      streams.closeAll();
      await watches.stop();
      await devices.stop();
    },
  };
}
