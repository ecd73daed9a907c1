import { basename, dirname, extname, join } from 'node:path';
import type { Logger } from '@homeops/common';
import { createPushProvider } from './adapters/pushover/create-push-provider.js';
import { loadRecipientMap } from './adapters/pushover/recipient-map.js';
import { FileAttachmentStore } from './adapters/storage/file-attachment.store.js';
import { YamlNotificationRepository } from './adapters/storage/yaml-notification.repository.js';
import type { Config } from './config.js';
import type { ServiceAdapters } from './service-runner.js';

/** `./data/notifications.yaml` keeps its attachments in `./data/notifications.attachments/`. */
export function attachmentDirOf(storagePath: string): string {
  const file = basename(storagePath, extname(storagePath));
  return join(dirname(storagePath), `${file}.attachments`);
}

/** The production adapters: the YAML history, attachment files beside it, Pushover (or off without keys). */
export function buildAdapters(config: Config, logger: Logger): ServiceAdapters {
  const storageLog = logger.child({ component: 'storage' });
  return {
    repository: new YamlNotificationRepository(config.STORAGE_PATH, {
      log: (level, message) => storageLog[level]({ path: config.STORAGE_PATH }, message),
    }),
    attachments: new FileAttachmentStore(attachmentDirOf(config.STORAGE_PATH)),
    provider: createPushProvider({
      userKey: config.PROVIDER_USER_KEY,
      apiToken: config.PROVIDER_API_TOKEN,
      apiUrl: config.PROVIDER_API_URL,
      timeoutMs: config.PROVIDER_TIMEOUT_MS,
      recipients: loadRecipientMap({ file: config.RECIPIENTS_FILE, variable: config.RECIPIENTS, unmapped: config.UNMAPPED_RECIPIENTS }),
      maxRejections: config.PROVIDER_MAX_REJECTIONS,
      emergencyRetrySeconds: config.EMERGENCY_RETRY_SECONDS,
      emergencyExpireSeconds: config.EMERGENCY_EXPIRE_SECONDS,
    }),
  };
}
