import { createHash } from 'node:crypto';
import { isRinging, type AlertIdentity, type NotificationRecord } from './notification.js';

/** Tags with this prefix are the server's: the tag an alert's emergency carries at Pushover; refused from callers. */
export const ALERT_TAG_PREFIX = 'alert-';

/** The key of an alert: its source and identity, hashed to a tag-safe word. */
export function alertKey(source: string, identity: string): string {
  return createHash('sha256').update(`${source}\0${identity}`).digest('hex').slice(0, 16);
}

/** The tag an alert's emergency carries at Pushover (for a look in Pushover's own tools; never read back here). */
export function alertTag(alert: Pick<AlertIdentity, 'key'>): string {
  return `${ALERT_TAG_PREFIX}${alert.key}`;
}

/** The first of comma-separated tags that uses the reserved prefix (in any case), or undefined. */
export function reservedTagIn(tags: string | undefined): string | undefined {
  return tags
    ?.split(',')
    .map((tag) => tag.trim())
    .find((tag) => tag.toLowerCase().startsWith(ALERT_TAG_PREFIX));
}

/** Ringing emergencies of one alert for one recipient, split by whether the alert's sender fired them. */
export interface RingingOfAlert {
  mine: NotificationRecord[];
  others: NotificationRecord[];
}

/** Matches the server-set `alert` field only, never tags. */
export function ringingOf(records: readonly NotificationRecord[], recipient: string, alert: AlertIdentity): RingingOfAlert {
  const found: RingingOfAlert = { mine: [], others: [] };
  for (const record of records) {
    if (record.recipient !== recipient || !isRinging(record) || record.alert?.source !== alert.source || record.alert.key !== alert.key) continue;
    (record.alert.firedBy === alert.firedBy ? found.mine : found.others).push(record);
  }
  return found;
}
