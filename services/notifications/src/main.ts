import { createLogger } from '@homeops/common';
import { buildAdapters } from './build-adapters.js';
import { readConfig } from './config.js';
import { startService } from './service-runner.js';
import { SERVICE_NAME } from './version.js';

const config = readConfig();
const logger = createLogger({ service: SERVICE_NAME, level: config.LOG_LEVEL });
try {
  await startService(config, logger, buildAdapters(config, logger), { handleSignals: true });
} catch (err) {
  // A corrupt or locked history, or a port in use: say which and stop; never start on a file we cannot trust.
  logger.fatal({ err }, `notifications could not start: ${err instanceof Error ? err.message : String(err)}`);
  logger.flush?.();
  process.exitCode = 1;
}
