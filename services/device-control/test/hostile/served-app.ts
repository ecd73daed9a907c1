import { createLogger, serve, type RunningServer } from '@homeops/common';
import { buildTestApp, type TestApp, type TestAppOptions } from '../support/test-app.js';

/** The app over the fake cloud, served by the shared `serve` (as main does) on 127.0.0.1 and a free port. */
export interface ServedApp extends TestApp {
  port: number;
  server: RunningServer;
  stop(): Promise<void>;
}

export async function serveTestApp(options: TestAppOptions = {}): Promise<ServedApp> {
  const t = await buildTestApp(options);
  const server = await serve({ app: t.app, port: 0, host: '127.0.0.1', logger: createLogger({ service: 'test', level: 'silent' }), graceMs: 500 });
  return {
    ...t,
    port: server.port,
    server,
    stop: async () => {
      await t.close();
      await server.stop();
    },
  };
}
