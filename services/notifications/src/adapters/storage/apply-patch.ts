import type { NotificationPatch, NotificationRecord } from '../../domain/notification.js';

/** The record with the patch applied, as a new object (stored records are never mutated). */
export function applyPatch(record: NotificationRecord, patch: NotificationPatch): NotificationRecord {
  const next: NotificationRecord = { ...record, delivery: { ...record.delivery } };
  if (patch.read !== undefined) next.read = patch.read;
  if (patch.readAt !== undefined) next.readAt = patch.readAt;
  if (patch.delivery !== undefined) next.delivery = { ...patch.delivery };
  if (patch.emergency !== undefined) next.emergency = { ...patch.emergency };
  return next;
}
