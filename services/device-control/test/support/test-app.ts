import {
  createLogger,
  InMemoryTokenStore,
  systemClock,
  TokenRegistry,
  type Clock,
  type EventStreamHub,
  type EventStreamLimits,
  type Logger,
} from '@homeops/common';
import type { Express } from 'express';
import { InMemoryWatchStore } from '../../src/adapters/watches/file-watch-store.js';
import { DEVICE_SCOPES } from '../../src/app.js';
import { composeDeviceControl, type ComposedDeviceControl, type DeviceControlOverrides } from '../../src/compose.js';
import { parseConfig, type Config } from '../../src/config.js';
import type { DeviceService, DeviceServiceOptions } from '../../src/domain/device.service.js';
import type { WatchSignal } from '../../src/domain/watches/device-watches.js';
import { CONTROL_FAMILIES } from '../../src/families/index.js';
import { FakeDeviceCloud } from '../fakes/fake-device-cloud.js';

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

/** The silent logger of the tests that do not read the log. */
export const silentLogger: Logger = createLogger({ service: 'test', level: 'silent' });

/** In-memory tokens: a test that needs one creates it through the API or the registry. */
export function memoryTokens(clock: Clock = systemClock): TokenRegistry {
  return new TokenRegistry({ store: new InMemoryTokenStore(), clock, scopes: DEVICE_SCOPES, families: CONTROL_FAMILIES });
}

/**
 * composeDeviceControl with a silent logger, in-memory tokens and watches, and (unless given) a notifier that only
 * records, so no file is read or written.
 */
export function composeTestService(config: Config, overrides: Partial<DeviceControlOverrides> = {}): Promise<ComposedDeviceControl> {
  return composeDeviceControl(config, {
    logger: silentLogger,
    tokens: memoryTokens(overrides.clock),
    watchStore: new InMemoryWatchStore(),
    ...overrides,
  });
}

/**
 * The service as the composition root builds it (composeDeviceControl) over a fake cloud, started as main starts it;
 * short timeouts, no periodic sync.
 */
export async function buildTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const cloud = options.cloud ?? FakeDeviceCloud.withDefaults();
  const watchSignals: WatchSignal[] = [];
  const config: Config = {
    ...parseConfig({}),
    API_KEY: options.apiKey,
    ...(options.authFailuresPerMinute === undefined ? {} : { AUTH_MAX_FAILURES_PER_MINUTE: options.authFailuresPerMinute }),
    // The event streams' heartbeats run on the app's clock, as in main.
    SSE_HEARTBEAT_SECONDS: (options.heartbeatMs ?? 60_000) / 1000,
    ...(options.streamLimits?.maxStreams === undefined ? {} : { SSE_MAX_STREAMS: options.streamLimits.maxStreams }),
    ...(options.streamLimits?.maxStreamsPerAddress === undefined ? {} : { SSE_MAX_STREAMS_PER_ADDRESS: options.streamLimits.maxStreamsPerAddress }),
    ...(options.streamLimits?.maxStreamsPerToken === undefined ? {} : { SSE_MAX_STREAMS_PER_TOKEN: options.streamLimits.maxStreamsPerToken }),
  };
  const service = await composeTestService(config, {
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    cloud,
    deviceOptions: {
      maxMessagesPerMinute: 100,
      maxMessagesPerHour: 10_000,
      syncIntervalSeconds: 0,
      requestTimeoutMs: 200,
      commandTimeoutMs: 100,
      backgroundStateReads: false,
      ...options.service,
    },
    notifier: { send: (signal) => Promise.resolve(void watchSignals.push(signal)) },
  });
  const { app, devices, streams, watches } = service;
  // As main starts it, except that a failed startup sync fails the test instead of being logged.
  if (options.start !== false) await devices.start();
  watches.start();
  return { app, cloud, devices, streams, watchSignals, close: service.close };
}
