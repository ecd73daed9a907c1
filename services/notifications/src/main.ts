import { createLogger, serve } from '@homeops/common';
import { createApp } from './app.js';
import { readConfig } from './config.js';
import { SERVICE_NAME } from './version.js';

const config = readConfig();
const logger = createLogger({ service: SERVICE_NAME, level: config.LOG_LEVEL });
const app = createApp({ logger }, config);
await serve({ app, port: config.PORT, host: config.HOST, logger, handleSignals: true });
