import type { NotificationPatch, NotificationRecord } from '../../domain/notification.js';

/** The record with the patch applied, as a new object (stored records are never mutated). */
export function applyPatch(record: NotificationRecord, patch: NotificationPatch): NotificationRecord {
  let next: NotificationRecord = { ...record, delivery: { ...record.delivery } };
  if (patch.read === true) next = { ...next, read: true, readAt: patch.readAt };
  else if (patch.read === false) next = { ...next, read: false, readAt: null };
  if (patch.delivery !== undefined) next.delivery = { ...patch.delivery };
  if (patch.emergency !== undefined) next.emergency = { ...patch.emergency };
  return next;
}
