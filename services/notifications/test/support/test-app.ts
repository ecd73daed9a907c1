import { createLogger, EventStreamHub, type Logger } from '@homeops/common';
import type { Express } from 'express';
import { buildDomain, createApp, type AppConfig } from '../../src/app.js';
import { parseConfig } from '../../src/config.js';
import type { AttachmentStore } from '../../src/domain/attachment-store.js';
import type { Clock } from '../../src/domain/clock.js';
import type { DeliveryWorker } from '../../src/domain/delivery.worker.js';
import type { NotificationContext } from '../../src/domain/notification-context.js';
import type { NotificationRepository } from '../../src/domain/notification-repository.js';
import { FakePushProvider } from '../fakes/fake-push.provider.js';
import { InMemoryAttachmentStore } from '../fakes/in-memory-attachment.store.js';
import { InMemoryNotificationRepository } from '../fakes/in-memory-notification.repository.js';

/** Everything a route test touches: the app and the fakes behind it. */
export interface TestApp {
  app: Express;
  repository: NotificationRepository;
  attachments: AttachmentStore;
  provider: FakePushProvider;
  delivery: DeliveryWorker;
  ctx: NotificationContext;
  hub: EventStreamHub;
}

export interface TestAppOptions {
  repository?: NotificationRepository;
  attachments?: AttachmentStore;
  provider?: FakePushProvider;
  clock?: Clock;
  config?: Partial<AppConfig>;
}

export const silentLogger: Logger = createLogger({ service: 'test', level: 'silent' });

/** createApp over in-memory fakes (or the given adapters), with retries fast enough for tests. */
export function buildTestApp(options: TestAppOptions = {}): TestApp {
  const config: AppConfig = {
    ...parseConfig({ DELIVERY_RETRY_MIN_MS: '20', DELIVERY_RETRY_MAX_MS: '80', PROVIDER_TIMEOUT_MS: '1000' }),
    ...options.config,
  };
  const repository = options.repository ?? new InMemoryNotificationRepository();
  const attachments = options.attachments ?? new InMemoryAttachmentStore();
  const provider = options.provider ?? new FakePushProvider();
  const hub = new EventStreamHub({ heartbeatMs: config.SSE_HEARTBEAT_MS });
  const base = { logger: silentLogger, repository, attachments, provider, hub, ...(options.clock ? { clock: options.clock } : {}) };
  const { ctx, delivery } = buildDomain(base, config);
  const app = createApp({ ...base, events: ctx.events, delivery }, config);
  return { app, repository, attachments, provider, delivery, ctx, hub };
}

/** Waits until `check` holds (polling), or fails after `ms`. */
export async function eventually(check: () => boolean, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
