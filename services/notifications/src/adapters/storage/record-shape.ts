const DELIVERY_STATUSES = new Set(['sent', 'pending', 'failed', 'skipped', 'expired', 'unknown', 'cancelled']);
const OPTIONAL_STRINGS = ['sound', 'url', 'urlTitle', 'device'] as const;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describeDeliveryProblem(delivery: unknown): string | undefined {
  if (!isObject(delivery)) return 'delivery must be a mapping';
  if (!DELIVERY_STATUSES.has(delivery.status as string)) return `delivery.status must be one of ${[...DELIVERY_STATUSES].join(', ')}`;
  if (!Number.isInteger(delivery.attempts) || (delivery.attempts as number) < 0) return 'delivery.attempts must be a non-negative integer';
  return undefined;
}

function describeAttachmentProblem(attachment: unknown): string | undefined {
  if (attachment === undefined) return undefined;
  if (!isObject(attachment)) return 'attachment must be a mapping';
  if (typeof attachment.filename !== 'string' || typeof attachment.contentType !== 'string') return 'attachment needs filename and contentType';
  if (typeof attachment.size !== 'number') return 'attachment.size must be a number';
  return undefined;
}

function describeEmergencyProblem(emergency: unknown): string | undefined {
  if (emergency === undefined) return undefined;
  if (!isObject(emergency)) return 'emergency must be a mapping';
  if (typeof emergency.retry !== 'number' || typeof emergency.expire !== 'number') return 'emergency needs retry and expire (seconds)';
  return undefined;
}

function describeAlertProblem(alert: unknown): string | undefined {
  if (alert === undefined) return undefined;
  if (!isObject(alert)) return 'alert must be a mapping';
  if (typeof alert.source !== 'string' || typeof alert.key !== 'string' || typeof alert.firedBy !== 'string') return 'alert needs source, key and firedBy';
  return undefined;
}

/**
 * Why a value loaded from disk (or about to be written) is not a NotificationRecord, or undefined when it is.
 * Checked on load so a hand-edited file fails at startup with a line number instead of later in a request.
 */
export function describeRecordProblem(value: unknown): string | undefined {
  if (!isObject(value)) return 'a notification must be a mapping';
  if (typeof value.id !== 'string' || value.id.length === 0) return 'id must be a non-empty string';
  for (const key of ['recipient', 'title', 'message', 'createdAt'] as const) {
    if (typeof value[key] !== 'string') return `${key} must be a string`;
  }
  if (Number.isNaN(Date.parse(value.createdAt as string))) return 'createdAt must be a date';
  if (!Number.isInteger(value.priority) || Math.abs(value.priority as number) > 2) return 'priority must be an integer from -2 to 2';
  if (typeof value.read !== 'boolean') return 'read must be true or false';
  if (value.readAt !== null && typeof value.readAt !== 'string') return 'readAt must be a date or null';
  if (value.read !== (value.readAt !== null))
    return value.read ? 'readAt must be the date it was read, as read is true' : 'readAt must be null, as read is false';
  for (const key of OPTIONAL_STRINGS) {
    if (value[key] !== undefined && typeof value[key] !== 'string') return `${key} must be a string`;
  }
  if (value.html !== undefined && typeof value.html !== 'boolean') return 'html must be true or false';
  if (value.monospace !== undefined && typeof value.monospace !== 'boolean') return 'monospace must be true or false';
  if (value.ttl !== undefined && typeof value.ttl !== 'number') return 'ttl must be a number';
  return (
    describeDeliveryProblem(value.delivery) ??
    describeAttachmentProblem(value.attachment) ??
    describeEmergencyProblem(value.emergency) ??
    describeAlertProblem(value.alert)
  );
}
