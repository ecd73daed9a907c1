export { createApp, type AppDeps } from './app.js';
export { SERVICE_VERSION } from './version.js';
