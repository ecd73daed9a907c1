import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, type Clock, type EventStreamHub, type Logger } from '@homeops/common';
import { afterEach } from 'vitest';
import { FileAttachmentStore } from '../../src/adapters/storage/file-attachment.store.js';
import { PgNotificationRepository } from '../../src/adapters/storage/postgres/pg-notification.repository.js';
import { YamlNotificationRepository } from '../../src/adapters/storage/yaml-notification.repository.js';
import { freshDatabase } from './postgres-database.js';
import type { Express } from 'express';
import { attachmentDirOf } from '../../src/build-adapters.js';
import { buildDomain, createApp, createStreamHub, type AppConfig } from '../../src/app.js';
import { parseConfig } from '../../src/config.js';
import type { AttachmentStore } from '../../src/domain/attachment-store.js';
import type { DeliveryWorker } from '../../src/domain/delivery.worker.js';
import type { NotificationContext } from '../../src/domain/notification-context.js';
import type { NotificationRepository } from '../../src/domain/notification-repository.js';
import type { PlanStore } from '../../src/domain/plans/plan.js';
import { InMemoryPlanStore } from '../../src/adapters/storage/in-memory-plan-store.js';
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
  /** Where the scheduled sends and heartbeats are kept (in memory unless given). */
  plans: PlanStore;
  /** The history file (real repository only). */
  storagePath?: string;
}

export interface TestAppOptions {
  /** Default: the real YAML repository in a fresh temp directory; `memory`: the in-memory fake. */
  repository?: NotificationRepository | 'memory';
  attachments?: AttachmentStore;
  provider?: FakePushProvider;
  clock?: Clock;
  config?: Partial<AppConfig>;
  plans?: PlanStore;
}

export const silentLogger: Logger = createLogger({ service: 'test', level: 'silent' });

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A fresh directory, removed after the test. */
export async function makeTempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'notifications-routes-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** The store the suites run against: the YAML file, or PostgreSQL when TEST_STORAGE=postgres (the postgres project). */
export const testStorage: 'yaml' | 'postgres' = process.env.TEST_STORAGE === 'postgres' ? 'postgres' : 'yaml';

/**
 * The real history (the YAML file in a fresh directory, or a fresh PostgreSQL database) and attachment files;
 * everything is closed and removed after the test.
 */
export async function openRealStorage(): Promise<{ repository: NotificationRepository; attachments: FileAttachmentStore; storagePath: string }> {
  const storagePath = join(await makeTempDir(), 'notifications.yaml');
  const repository =
    testStorage === 'postgres'
      ? new PgNotificationRepository({ url: await freshDatabase(), poolMax: 5, connectTimeoutMs: 5_000, queryTimeoutMs: 10_000, leaseMs: 30_000 })
      : new YamlNotificationRepository(storagePath);
  await repository.open();
  cleanups.push(() => repository.close());
  return { repository, attachments: new FileAttachmentStore(attachmentDirOf(storagePath)), storagePath };
}

/** createApp over the real YAML history in a temp dir (or the given adapters), a recording provider, fast retries. */
export async function buildTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const config: AppConfig = {
    ...parseConfig({ DELIVERY_RETRY_MIN_MS: '20', DELIVERY_RETRY_MAX_MS: '80', PROVIDER_TIMEOUT_MS: '1000' }),
    ...options.config,
  };
  const real = options.repository === undefined ? await openRealStorage() : undefined;
  const repository = real?.repository ?? (options.repository === 'memory' || !options.repository ? new InMemoryNotificationRepository() : options.repository);
  const attachments = options.attachments ?? real?.attachments ?? new InMemoryAttachmentStore();
  const provider = options.provider ?? new FakePushProvider();
  const hub = createStreamHub(config);
  const base = { logger: silentLogger, repository, attachments, provider, hub, ...(options.clock ? { clock: options.clock } : {}) };
  const { ctx, delivery } = buildDomain(base, config);
  const plans = options.plans ?? new InMemoryPlanStore();
  const app = createApp({ ...base, events: ctx.events, delivery, plans }, config);
  // Retries must not outlive the test's storage.
  cleanups.push(() => delivery.stop());
  return { app, repository, attachments, provider, delivery, ctx, hub, plans, ...(real ? { storagePath: real.storagePath } : {}) };
}

/** Serves a test app on 127.0.0.1 and a free port; the server is closed (connections cut) after the test. */
export async function listenOn(app: Express): Promise<number> {
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return (server.address() as AddressInfo).port;
}
