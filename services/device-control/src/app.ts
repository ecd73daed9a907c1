import { Api, createHttpApp, type Logger } from '@homeops/common';
import type { Express } from 'express';
import type { Config } from './config.js';
import { registerHealthRoutes } from './http/health.router.js';
import { SERVICE_NAME, SERVICE_VERSION } from './version.js';

/** What the app needs from the outside world; tests pass fakes. */
export interface AppDeps {
  logger: Logger;
}

/** Builds the Express app; never listens. */
export function createApp(deps: AppDeps, config: Pick<Config, 'API_KEY'>): Express {
  const api = new Api({ title: SERVICE_NAME, version: SERVICE_VERSION });
  registerHealthRoutes(api, Date.now());
  return createHttpApp({ logger: deps.logger, api, apiKey: config.API_KEY });
}
