export { App, type AppOptions, createAppFromAdapters as createApp, startService, type ServiceAdapters } from './library.js';
export { buildDomain, type AppDeps } from './build-domain.js';
export type { AppConfig } from './app.js';
export { ConfigSchema, parseConfig, type Config } from './config.js';
export type { RunningService } from './compose.js';
export { PushoverService, PushoverError, type PushoverErrorCode, type PushoverServiceOptions, type SendNotificationOptions } from './pushover-service.js';
export { PUSHOVER_SOUNDS, PUSHOVER_SOUNDS as sounds, isPushoverSound, type PushoverSound } from './adapters/pushover/sounds.js';
export { SERVICE_VERSION } from './version.js';
export type {
  NotificationRecord,
  NotificationContent,
  ReadStatus,
  Delivery,
  ChannelState,
  ChannelName,
  AttachmentMeta,
  AlertIdentity,
  Priority,
  NotificationPatch,
} from './domain/notification.js';
export type { NotificationRepository, NotificationPage, ListQuery, StorageStats } from './domain/notification-repository.js';
export type { AttachmentStore } from './domain/attachment-store.js';
export { DeliveryError, type PushProvider, type PushMessage, type PushReceipt, type ProviderStatus } from './domain/push-provider.js';
export type { NotificationEvent } from './domain/notification-events.js';
export type { NewNotification, IncomingAttachment } from './domain/create-notification.use-case.js';
export type { Clock } from '@homeops/common';
