import { createHash } from 'node:crypto';
import type { AlertIdentity } from './notification.js';

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

/** Whether two identities name the same alert fired by the same sender. */
export function isSameAlert(a: AlertIdentity | undefined, b: AlertIdentity): boolean {
  return a !== undefined && a.source === b.source && a.key === b.key && a.firedBy === b.firedBy;
}
