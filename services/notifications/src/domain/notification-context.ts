import type { Clock, Logger } from '@homeops/common/core';
import type { AttachmentStore } from './attachment-store.js';
import type { NotificationEvents } from './notification-events.js';
import type { NotificationRepository } from './notification-repository.js';

/** What every use-case works with: storage, the live feed and the time. */
export interface NotificationContext {
  repository: NotificationRepository;
  attachments: AttachmentStore;
  events: NotificationEvents;
  clock: Clock;
  logger: Logger;
}
