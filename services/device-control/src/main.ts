import { dirname, join } from 'node:path';
import {
  createLogger,
  EventStreamHub,
  openServiceTokens,
  serve,
  systemClock,
  withResolvedAccess,
  type Clock,
  type Logger,
  type TokenRegistry,
} from '@homeops/common';
import { MerossCloud } from './adapters/meross/meross-cloud.adapter.js';
import { SimulatorCloud } from './adapters/simulator/simulator-cloud.adapter.js';
import { createApp, DEVICE_SCOPES } from './app.js';
import { CONTROL_FAMILIES, DOMAIN_FAMILIES } from './families/index.js';
import { FileWatchStore } from './adapters/watches/file-watch-store.js';
import { HookNotifier } from './adapters/watches/hook-notifier.js';
import { parseWatch } from './http/watches.schemas.js';
import { DeviceWatches } from './domain/watches/device-watches.js';
import { deviceServiceOptions, lanOptions, lanPollSeconds, readConfig, type Config } from './config.js';
import type { DeviceCloud } from './domain/device-cloud.js';
import { DeviceService } from './domain/device.service.js';
import { SERVICE_NAME } from './version.js';

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

const clock = systemClock;
const read = readConfig();
const logger = createLogger({ service: SERVICE_NAME, level: read.LOG_LEVEL });
let config: Config & { HOST: string };
try {
  config = await withResolvedAccess(read, join(dirname(read.CLOUD_TOKEN_FILE), 'api-key'), logger);
} catch (err) {
  logger.fatal({ error: (err as Error).message }, `device-control could not start: ${(err as Error).message}`);
  process.exit(1);
}
let cloud: DeviceCloud;
try {
  cloud = createCloud(config, logger, clock);
} catch (err) {
  logger.fatal({ error: (err as Error).message }, 'cannot start the cloud backend');
  process.exit(1);
}
const streams = new EventStreamHub({
  heartbeatMs: config.SSE_HEARTBEAT_SECONDS * 1000,
  maxStreams: config.SSE_MAX_STREAMS,
  maxStreamsPerAddress: config.SSE_MAX_STREAMS_PER_ADDRESS,
  maxStreamsPerToken: config.SSE_MAX_STREAMS_PER_TOKEN,
  clock,
});
const devices = new DeviceService(cloud, { ...deviceServiceOptions(config), families: DOMAIN_FAMILIES, lanPollSeconds: lanPollSeconds(config) }, logger, clock);
// Loaded only with MQTT_URL: a service without it never loads the bridge or the mqtt package.
const mqtt = config.MQTT_URL === undefined ? undefined : (await import('./start-mqtt.js')).buildMqtt(config, { devices, cloud, clock, logger });
let tokens: TokenRegistry;
try {
  tokens = await openServiceTokens({
    file: config.TOKENS_FILE,
    dataDir: dirname(config.CLOUD_TOKEN_FILE),
    service: SERVICE_NAME,
    scopes: DEVICE_SCOPES,
    clock,
    families: CONTROL_FAMILIES,
    logger,
  });
} catch (err) {
  logger.fatal({ error: (err as Error).message }, `device-control could not start: ${(err as Error).message}`);
  process.exit(1);
}
const watches = new DeviceWatches({
  devices,
  notifier: config.NOTIFY_URL ? new HookNotifier({ url: config.NOTIFY_URL, token: config.NOTIFY_TOKEN, timeoutMs: config.NOTIFY_TIMEOUT_MS }) : undefined,
  store: new FileWatchStore(config.WATCHES_FILE ?? join(dirname(config.CLOUD_TOKEN_FILE), 'watches.json'), parseWatch),
  clock,
  logger: logger.child({ component: 'watches' }),
});
try {
  await watches.load();
} catch (err) {
  logger.fatal({ error: (err as Error).message }, `device-control could not start: ${(err as Error).message}`);
  process.exit(1);
}
const app = createApp({ logger, cloud, devices, streams, clock, tokens, watches, ...(mqtt ? { mqttStatus: mqtt.status } : {}) }, config);
await serve({
  app,
  port: config.PORT,
  host: config.HOST,
  logger,
  handleSignals: true,
  close: async () => {
    streams.closeAll();
    await mqtt?.stop();
    await watches.stop();
    await devices.stop();
    await tokens.close();
  },
});
mqtt?.start();
try {
  await devices.start();
} catch (err) {
  // The service keeps answering (503 on device calls, degraded /health) and syncs when the session comes up.
  logger.error({ error: (err as Error).message }, 'device service did not start cleanly');
}
watches.start();
