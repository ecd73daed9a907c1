import { basename, dirname, extname, join } from 'node:path';
import { systemClock, type Clock, type Logger } from '@homeops/common';
import { createPushProvider } from './adapters/pushover/create-push-provider.js';
import { loadRecipientMap } from './adapters/pushover/recipient-map.js';
import { FileAttachmentStore } from './adapters/storage/file-attachment.store.js';
import { FilePlanStore } from './adapters/storage/file-plan-store.js';
import { nodeStorageFs } from './adapters/storage/storage-fs.js';
import { PgEventRelay } from './adapters/storage/postgres/pg-event-relay.js';
import { PgNotificationRepository, type PgSettings } from './adapters/storage/postgres/pg-notification.repository.js';
import { PgPlanStore } from './adapters/storage/postgres/pg-plan-store.js';
import { YamlNotificationRepository } from './adapters/storage/yaml-notification.repository.js';
import type { Config } from './config.js';
import type { ServiceAdapters } from './service-runner.js';

/** `./data/notifications.yaml` keeps its attachments in `./data/notifications.attachments/`. */
export function attachmentDirOf(storagePath: string): string {
  const file = basename(storagePath, extname(storagePath));
  return join(dirname(storagePath), `${file}.attachments`);
}

/**
 * The history and the plans: with STORAGE_URL both in PostgreSQL, shared by the instances (events relayed, plans
 * claimed by version, on the history's pool); else the YAML file with the plans in a JSON file beside it (one instance).
 */
function buildStorage(config: Config, logger: Logger, clock: Clock): Pick<ServiceAdapters, 'repository' | 'relay' | 'plans'> {
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
    leaseMs: 2 * (config.PROVIDER_TIMEOUT_MS + 2_000) + 10_000,
    ...(log === undefined ? {} : { log }),
    ...overrides,
  });
}

/** The production adapters: the history and the plans, attachment files (beside the YAML file, or in STORAGE_PATH's folder), Pushover. */
export function buildAdapters(config: Config, logger: Logger, clock: Clock = systemClock): ServiceAdapters {
  return {
    clock,
    ...buildStorage(config, logger, clock),
    attachments: new FileAttachmentStore(config.ATTACHMENTS_DIR ?? attachmentDirOf(config.STORAGE_PATH), nodeStorageFs, {
      maxBytes: config.ATTACHMENTS_MAX_BYTES,
    }),
    provider: createPushProvider({
      userKey: config.PROVIDER_USER_KEY,
      apiToken: config.PROVIDER_API_TOKEN,
      apiUrl: config.PROVIDER_API_URL,
      timeoutMs: config.PROVIDER_TIMEOUT_MS,
      recipients: loadRecipientMap({ file: config.RECIPIENTS_FILE, variable: config.RECIPIENTS, unmapped: config.UNMAPPED_RECIPIENTS }),
      maxRejections: config.PROVIDER_MAX_REJECTIONS,
      emergencyRetrySeconds: config.EMERGENCY_RETRY_SECONDS,
      emergencyExpireSeconds: config.EMERGENCY_EXPIRE_SECONDS,
      clock,
    }),
  };
}
