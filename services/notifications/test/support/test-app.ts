import { afterTest } from '@homeops/test-kit';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, InMemoryTokenStore, systemClock, TokenRegistry, type Clock, type EventStreamHub, type Logger } from '@homeops/common';
import { FileAttachmentStore } from '../../src/adapters/storage/file-attachment.store.js';
import { PgNotificationRepository } from '../../src/adapters/storage/postgres/pg-notification.repository.js';
import { YamlNotificationRepository } from '../../src/adapters/storage/yaml-notification.repository.js';
import { freshDatabase } from './postgres-database.js';
import type { Express } from 'express';
import { NOTIFICATION_SCOPES } from '../../src/app.js';
import type { Domain } from '../../src/build-domain.js';
import { attachmentDirOf } from '../../src/build-storage.js';
import { composeNotifications, type ComposedNotifications, type NotificationOverrides } from '../../src/compose.js';
import { parseConfig, type Config } from '../../src/config.js';
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
  /** The domain the composition built once (the same objects HTTP, webhooks and heartbeats use). */
  domain: Domain;
  /** Where the scheduled sends and heartbeats are kept (in memory unless given). */
  plans: PlanStore;
  /** The history file (real repository only). */
  storagePath?: string;
}

export interface TestAppOptions {
  /**
   * Default: the in-memory history, or the real one (see testStorage) when TEST_STORAGE is set; `real`: the YAML file
   * in a fresh temp directory (PostgreSQL with TEST_STORAGE=postgres) and attachment files beside it.
   */
  repository?: NotificationRepository | 'memory' | 'real';
  attachments?: AttachmentStore;
  provider?: FakePushProvider;
  clock?: Clock;
  config?: Partial<Config>;
  plans?: PlanStore;
}

export const silentLogger: Logger = createLogger({ service: 'test', level: 'silent' });

/** A fresh directory, removed after the test. */
export async function makeTempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'notifications-routes-'));
  afterTest(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** The real store of the suites: the YAML file, or PostgreSQL when TEST_STORAGE=postgres (the postgres project). */
export const testStorage: 'yaml' | 'postgres' = process.env.TEST_STORAGE === 'postgres' ? 'postgres' : 'yaml';

/**
 * Where route tests keep the history by default: in memory (the YAML and PostgreSQL stores have their own contract
 * suites), unless TEST_STORAGE asks for a real store, as the postgres project does.
 */
const routeStorage: 'memory' | 'real' = process.env.TEST_STORAGE ? 'real' : 'memory';

/** A real history (the YAML file in a fresh directory, or a fresh PostgreSQL database), not yet opened. */
async function realRepository(): Promise<{ repository: NotificationRepository; storagePath: string }> {
  const storagePath = join(await makeTempDir(), 'notifications.yaml');
  const repository =
    testStorage === 'postgres'
      ? new PgNotificationRepository({ url: await freshDatabase(), poolMax: 5, connectTimeoutMs: 5_000, queryTimeoutMs: 10_000, leaseMs: 30_000 })
      : new YamlNotificationRepository(storagePath);
  return { repository, storagePath };
}

/**
 * The real history (the YAML file in a fresh directory, or a fresh PostgreSQL database) and attachment files;
 * everything is closed and removed after the test.
 */
export async function openRealStorage(): Promise<{ repository: NotificationRepository; attachments: FileAttachmentStore; storagePath: string }> {
  const { repository, storagePath } = await realRepository();
  await repository.open();
  afterTest(() => repository.close());
  return { repository, attachments: new FileAttachmentStore(attachmentDirOf(storagePath)), storagePath };
}

/** In-memory tokens: a route test that needs one creates it through the API or the registry. */
export function memoryTokens(clock?: Clock): TokenRegistry {
  return new TokenRegistry({ store: new InMemoryTokenStore(), scopes: NOTIFICATION_SCOPES, clock: clock ?? systemClock });
}

/**
 * The service as the composition root builds it (composeNotifications), on the in-memory history by default (see
 * TestAppOptions), a recording provider, in-memory tokens and plans, fast retries; not listening, its background work
 * not started; closed after the test.
 */
export async function buildTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const wanted = options.repository ?? routeStorage;
  const real = wanted === 'real' ? await realRepository() : undefined;
  const config: Config = {
    ...parseConfig({
      DELIVERY_RETRY_MIN_MS: '20',
      DELIVERY_RETRY_MAX_MS: '80',
      PROVIDER_TIMEOUT_MS: '1000',
      ...(real ? { STORAGE_PATH: real.storagePath } : {}),
    }),
    ...options.config,
  };
  const repository = real?.repository ?? (typeof wanted === 'object' ? wanted : new InMemoryNotificationRepository());
  const attachments = options.attachments ?? (real ? new FileAttachmentStore(attachmentDirOf(real.storagePath)) : new InMemoryAttachmentStore());
  const provider = options.provider ?? new FakePushProvider();
  const composed = await composeTestService(config, {
    repository,
    attachments,
    provider,
    plans: options.plans ?? new InMemoryPlanStore(),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const { app, domain, hub, plans } = composed;
  const { ctx, delivery } = domain;
  return { app, repository, attachments, provider, delivery, ctx, hub, domain, plans, ...(real ? { storagePath: real.storagePath } : {}) };
}

/**
 * composeNotifications with a silent logger and in-memory tokens unless given, closed after the test (retries must
 * not outlive the test's storage).
 */
export async function composeTestService(
  config: Config,
  overrides: Omit<NotificationOverrides, 'logger'> & { logger?: Logger },
): Promise<ComposedNotifications> {
  const composed = await composeNotifications(config, {
    logger: silentLogger,
    ...overrides,
    tokens: overrides.tokens ?? memoryTokens(overrides.clock),
  });
  afterTest(composed.close);
  return composed;
}

/** Serves a test app on 127.0.0.1 and a free port; the server is closed (connections cut) after the test. */
export async function listenOn(app: Express): Promise<number> {
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  afterTest(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return (server.address() as AddressInfo).port;
}

/**
 * A history the test opened and closes itself, lent to a composition (which opens and closes what it is given): its
 * open and close do nothing, everything else is the history's own.
 */
export function lent(repository: NotificationRepository): NotificationRepository {
  return new Proxy(repository, {
    get(target, property) {
      if (property === 'open' || property === 'close') return () => Promise.resolve();
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
