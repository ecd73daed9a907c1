import { basename, dirname, extname, join } from 'node:path';
import type { Clock, Logger } from '@homeops/common';
import { FilePlanStore } from './adapters/storage/file-plan-store.js';
import { PgEventRelay } from './adapters/storage/postgres/pg-event-relay.js';
import { PgNotificationRepository, type PgSettings } from './adapters/storage/postgres/pg-notification.repository.js';
import { PgPlanStore } from './adapters/storage/postgres/pg-plan-store.js';
import { YamlNotificationRepository } from './adapters/storage/yaml-notification.repository.js';
import { minLeaseMs, type Config } from './config.js';
import type { EventRelay } from './domain/notification-events.js';
import type { NotificationRepository } from './domain/notification-repository.js';
import type { PlanStore } from './domain/plans/plan.js';

/** Where the history and the plans are kept, and how the instances sharing them hear each other's events. */
export interface Storage {
  repository: NotificationRepository;
  plans: PlanStore;
  /** Only with a store several instances share. */
  relay?: EventRelay;
}

/** `./data/notifications.yaml` keeps its attachments in `./data/notifications.attachments/`. */
export function attachmentDirOf(storagePath: string): string {
  const file = basename(storagePath, extname(storagePath));
  return join(dirname(storagePath), `${file}.attachments`);
}

/**
 * The history and the plans: with STORAGE_URL both in PostgreSQL, shared by the instances (events relayed, plans
 * claimed by version, on the history's pool); else the YAML file with the plans in a JSON file beside it (one instance).
 */
export function buildStorage(config: Config, logger: Logger, clock: Clock): Storage {
  const storageLog = logger.child({ component: 'storage' });
  if (config.STORAGE_URL === undefined) {
    return {
      repository: new YamlNotificationRepository(config.STORAGE_PATH, {
        log: (level, message) => storageLog[level]({ path: config.STORAGE_PATH }, message),
        clock,
      }),
      plans: new FilePlanStore(config.PLANS_FILE ?? join(dirname(config.STORAGE_PATH), 'plans.json')),
    };
  }
  const log = (level: 'info' | 'warn' | 'error', message: string) => storageLog[level](message);
  const repository = pgRepositoryOf(config, config.STORAGE_URL, log, { clock });
  return {
    repository,
    relay: new PgEventRelay(repository.pool, config.STORAGE_URL, repository, repository.instanceId, log, clock),
    plans: new PgPlanStore(repository.pool),
  };
}

/** The PostgreSQL history at `url` with the configured pool and timeouts. */
export function pgRepositoryOf(config: Config, url: string, log: PgSettings['log'], overrides: Partial<PgSettings> = {}): PgNotificationRepository {
  return new PgNotificationRepository({
    url,
    poolMax: config.PG_POOL_MAX,
    connectTimeoutMs: config.PG_CONNECT_TIMEOUT_MS,
    queryTimeoutMs: config.PG_QUERY_TIMEOUT_MS,
    // Longer than any attempt can take: a claim only lapses when its instance is gone.
    leaseMs: config.DELIVERY_LEASE_MS ?? minLeaseMs(config.PROVIDER_TIMEOUT_MS) + 10_000,
    ...(log === undefined ? {} : { log }),
    ...overrides,
  });
}
