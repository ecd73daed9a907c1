import { createLogger } from '@homeops/common';
import { startDeviceControl } from './compose.js';
import { readConfig } from './config.js';
import { SERVICE_NAME } from './version.js';

const config = readConfig();
const logger = createLogger({ service: SERVICE_NAME, level: config.LOG_LEVEL });
try {
  await startDeviceControl(config, { logger }, { handleSignals: true });
} catch (err) {
  // No cloud credentials for CLOUD_BACKEND=meross, unreadable tokens or watches, a port in use: say which in one line
  // and stop. Everything the start had opened is closed by now.
  const { message, code } = err as Error & { code?: unknown };
  logger.fatal({ ...(typeof code === 'string' ? { code } : {}), port: config.PORT }, `device-control could not start: ${message}`);
  process.exit(1);
}
