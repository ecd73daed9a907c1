import { createLogger } from '@homeops/common';
import { startNotifications } from './compose.js';
import { readConfig } from './config.js';
import { SERVICE_NAME } from './version.js';

const config = readConfig();
const logger = createLogger({ service: SERVICE_NAME, level: config.LOG_LEVEL });
try {
  await startNotifications(config, { logger }, { handleSignals: true });
} catch (err) {
  // A corrupt or locked history, or a port in use: say which in one line and stop; never start on a file we cannot
  // trust. Everything the start had opened is closed by now.
  const { message, code } = err as Error & { code?: unknown };
  logger.fatal({ ...(typeof code === 'string' ? { code } : {}), port: config.PORT }, `notifications could not start: ${message}`);
  process.exit(1);
}
