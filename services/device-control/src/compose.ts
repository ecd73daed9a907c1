import { dirname, join } from 'node:path';
import {
  AppMetrics,
  EventStreamHub,
  openServiceTokens,
  Resources,
  serve,
  systemClock,
  withResolvedAccess,
  type Clock,
  type Composed,
  type Logger,
  type RunningServer,
  type TokenRegistry,
} from '@homeops/common';
import { MerossCloud } from './adapters/meross/meross-cloud.adapter.js';
import { SimulatorCloud } from './adapters/simulator/simulator-cloud.adapter.js';
import { FileWatchStore } from './adapters/watches/file-watch-store.js';
import { HookNotifier } from './adapters/watches/hook-notifier.js';
import { createApp, DEVICE_SCOPES } from './app.js';
import { deviceServiceOptions, lanOptions, lanPollSeconds, type Config } from './config.js';
import type { DeviceCloud } from './domain/device-cloud.js';
import { DeviceService, type DeviceServiceOptions } from './domain/device.service.js';
import { DeviceWatches, type WatchNotifier, type WatchStore } from './domain/watches/device-watches.js';
import { CONTROL_FAMILIES, DOMAIN_FAMILIES } from './families/index.js';
import { parseWatch } from './http/watches.schemas.js';
import { SERVICE_NAME } from './version.js';

/** What a test puts in place of what the config would build; given or built, each is closed by the composition. */
export interface DeviceControlOverrides {
  logger: Logger;
  /** Time and timers of the device service, the watches and the event streams; default the system clock. */
  clock?: Clock;
  /** Default: the backend CLOUD_BACKEND names, Meross or the simulator. */
  cloud?: DeviceCloud;
  /** The device service's limits and timings instead of the config's. */
  deviceOptions?: Omit<DeviceServiceOptions, 'families'>;
  /** Default: the scoped tokens of TOKENS_FILE (or beside the cloud token file). */
  tokens?: TokenRegistry;
  /** Default: WATCHES_FILE (or watches.json beside the cloud token file). */
  watchStore?: WatchStore;
  /** Where watch signals go; default the notification service at NOTIFY_URL, none without it. */
  notifier?: WatchNotifier;
}

/** The service put together and opened, not yet listening, the device service not yet started. */
export interface ComposedDeviceControl extends Composed<Config> {
  cloud: DeviceCloud;
  /** Built once: HTTP, the watches and the MQTT bridge share it. */
  devices: DeviceService;
  streams: EventStreamHub;
  watches: DeviceWatches;
  /** Starts the MQTT bridge, the device service (a failure is logged: the service answers degraded) and the watches. */
  start(): Promise<void>;
}

/** The one place that chooses the cloud backend. */
function createCloud(config: Config, logger: Logger, clock: Clock): DeviceCloud {
  switch (config.CLOUD_BACKEND) {
    case 'simulator':
      if (config.simulatorByDefault) {
        logger.warn(
          '*** NO CLOUD CREDENTIALS: running the in-memory SIMULATOR, not your Meross account. ' +
            'Set CLOUD_EMAIL and CLOUD_PASSWORD (or MEROSS_EMAIL/MEROSS_PASSWORD) to control real devices. ***',
        );
      }
      return new SimulatorCloud({ extraDevices: config.SIMULATOR_EXTRA_DEVICES, clock });
    case 'meross': {
      const { CLOUD_EMAIL: email, CLOUD_PASSWORD: password } = config;
      if (!email || !password) throw new Error('CLOUD_BACKEND=meross needs CLOUD_EMAIL and CLOUD_PASSWORD');
      return new MerossCloud({
        email,
        password,
        mfaCode: config.CLOUD_MFA_CODE,
        apiUrl: config.CLOUD_API_URL,
        tokenFile: config.CLOUD_TOKEN_FILE,
        requestTimeoutMs: config.CLOUD_REQUEST_TIMEOUT_MS,
        commandTimeoutMs: config.CLOUD_COMMAND_TIMEOUT_MS,
        lan: lanOptions(config),
        clock,
        logger: logger.child({ component: 'meross' }),
      });
    }
  }
}

/**
 * The one place device-control is put together: the cloud, the device service on it, the tokens, the watches, the
 * MQTT bridge and the event streams, each cleanup registered as its resource opens, and the app on them. A step that
 * fails closes what the steps before it opened.
 */
export async function composeDeviceControl(settings: Config, overrides: DeviceControlOverrides): Promise<ComposedDeviceControl> {
  const { logger } = overrides;
  const clock = overrides.clock ?? systemClock;
  const dataDir = dirname(settings.CLOUD_TOKEN_FILE);
  const resources = new Resources();
  return resources.openAll(async () => {
    const config = await withResolvedAccess(settings, join(dataDir, 'api-key'), logger);
    const cloud = overrides.cloud ?? createCloud(config, logger, clock);
    const devices = new DeviceService(
      cloud,
      { families: DOMAIN_FAMILIES, ...(overrides.deviceOptions ?? { ...deviceServiceOptions(config), lanPollSeconds: lanPollSeconds(config) }) },
      logger,
      clock,
    );
    // Stopping the device service stops its cloud.
    resources.add('devices', () => devices.stop());
    const tokens =
      overrides.tokens ??
      (await openServiceTokens({ file: config.TOKENS_FILE, dataDir, service: SERVICE_NAME, scopes: DEVICE_SCOPES, clock, families: CONTROL_FAMILIES, logger }));
    resources.add('tokens', () => tokens.close());
    const notifier =
      overrides.notifier ??
      (config.NOTIFY_URL ? new HookNotifier({ url: config.NOTIFY_URL, token: config.NOTIFY_TOKEN, timeoutMs: config.NOTIFY_TIMEOUT_MS }) : undefined);
    const watches = new DeviceWatches({
      devices,
      notifier,
      store: overrides.watchStore ?? new FileWatchStore(config.WATCHES_FILE ?? join(dataDir, 'watches.json'), parseWatch),
      clock,
      logger: logger.child({ component: 'watches' }),
    });
    await watches.load();
    resources.add('watches', () => watches.stop());
    // Loaded only with MQTT_URL: a service without it never loads the bridge or the mqtt package.
    const mqtt = config.MQTT_URL === undefined ? undefined : (await import('./build-mqtt.js')).buildMqtt(config, { devices, cloud, clock, logger });
    if (mqtt) resources.add('mqtt', () => mqtt.stop());
    const streams = new EventStreamHub({
      heartbeatMs: config.SSE_HEARTBEAT_SECONDS * 1000,
      maxStreams: config.SSE_MAX_STREAMS,
      maxStreamsPerAddress: config.SSE_MAX_STREAMS_PER_ADDRESS,
      maxStreamsPerToken: config.SSE_MAX_STREAMS_PER_TOKEN,
      clock,
    });
    resources.add('event streams', () => streams.closeAll());
    const metrics = config.METRICS === 'off' ? undefined : new AppMetrics();
    const app = createApp({ logger, cloud, devices, streams, clock, tokens, watches, metrics, ...(mqtt ? { mqttStatus: mqtt.status } : {}) }, config);
    const start = async () => {
      mqtt?.start();
      try {
        await devices.start();
      } catch (err) {
        // The service keeps answering (503 on device calls, degraded /health) and syncs when the session comes up.
        logger.error({ error: (err as Error).message }, 'device service did not start cleanly');
      }
      watches.start();
    };
    return { config, app, cloud, devices, streams, watches, resources, start, close: () => resources.closeAll() };
  }, closeErrorLogger(logger));
}

/** Logs a cleanup that failed after a failed start (the start's own error is the one thrown). */
const closeErrorLogger = (logger: Logger) => (err: unknown) => logger.warn({ err }, 'closing after a failed start');

/**
 * Composes device-control, listens, then starts the device service. Listening that fails (a port in use) closes all
 * it opened and throws; stop() closes the server, then everything else, last opened first.
 */
export async function startDeviceControl(
  settings: Config,
  overrides: DeviceControlOverrides,
  options: { handleSignals: boolean },
): Promise<RunningServer & { service: ComposedDeviceControl }> {
  const service = await composeDeviceControl(settings, overrides);
  const { config, resources } = service;
  const running = await resources.openAll(
    () =>
      serve({ app: service.app, port: config.PORT, host: config.HOST, logger: overrides.logger, handleSignals: options.handleSignals, close: service.close }),
    closeErrorLogger(overrides.logger),
  );
  await service.start();
  return { ...running, service };
}
