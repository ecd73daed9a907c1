import type { NotificationRecord } from '../domain/notification.js';
import type { NotificationView } from './response.schemas.js';

/** The record as the routes send it: the stored record already is the documented JSON, and the compiler checks it here. */
export function notificationView(record: NotificationRecord): NotificationView {
  return record;
}

/** A page of records as the routes send it (the same array: no copy on the list route). */
export function notificationViews(records: NotificationRecord[]): NotificationView[] {
  return records;
}

// Every field of the record is documented, and every documented field is the record's: adding one means adding both.
type Undocumented = Exclude<keyof NotificationRecord, keyof NotificationView> | Exclude<keyof NotificationView, keyof NotificationRecord>;
type AssertNone<T extends never> = T;
export type _EveryFieldDocumented = AssertNone<Undocumented>;
