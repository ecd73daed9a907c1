import type { PushMessage } from '../../domain/push-provider.js';
import type { PushoverFields } from './pushover-request.js';

/** A message plus the emergency-priority knobs only Pushover has. */
export interface PushoverMessage extends PushMessage {
  /** Priority 2: seconds between repeats (Pushover: at least 30). */
  retry?: number;
  /** Priority 2: seconds until repeats stop (Pushover: at most 10800). */
  expire?: number;
}

/** Defaults for priority 2, which Pushover refuses without retry and expire. */
export interface EmergencyDefaults {
  retry: number;
  expire: number;
}

// Quotes or line breaks in a multipart header would let a filename forge headers or parts.
function safeFilename(name: string): string {
  const cleaned = name.replace(/[\r\n"\\]/g, '_').trim();
  return cleaned === '' ? 'attachment' : cleaned;
}

function safeContentType(type: string): string {
  return /^[\w.+-]+\/[\w.+-]+$/.test(type) ? type : 'application/octet-stream';
}

/**
 * Builds a fresh field object (the library mutates what it is given). The library also blanks falsy
 * fields, so the priority goes as a string: "0" survives where 0 would be dropped.
 */
export function toPushoverFields(message: PushoverMessage, emergency: EmergencyDefaults, devices: string[] = []): PushoverFields {
  const fields: PushoverFields = { message: message.message, priority: String(message.priority) };
  if (message.title) fields.title = message.title;
  if (message.sound) fields.sound = message.sound;
  if (message.url) fields.url = message.url;
  if (message.urlTitle) fields.url_title = message.urlTitle;
  if (message.html) fields.html = 1;
  else if (message.monospace) fields.monospace = 1;
  // Pushover shows this time instead of when it received the message: a retried or resumed delivery tells when it happened.
  const created = message.createdAt === undefined ? Number.NaN : Math.floor(Date.parse(message.createdAt) / 1000);
  if (Number.isFinite(created) && created > 0) fields.timestamp = created;
  if (message.ttl !== undefined) fields.ttl = message.ttl;
  // The request's own device wins over the recipient map's devices.
  if (message.device) fields.device = message.device;
  else if (devices.length > 0) fields.device = devices.join(',');
  if (message.priority === 2) {
    fields.retry = message.emergency?.retry ?? message.retry ?? emergency.retry;
    fields.expire = message.emergency?.expire ?? message.expire ?? emergency.expire;
    if (message.emergency?.callback) fields.callback = message.emergency.callback;
    if (message.emergency?.tags) fields.tags = message.emergency.tags;
  }
  if (message.attachment) {
    fields.file = {
      name: safeFilename(message.attachment.filename),
      type: safeContentType(message.attachment.contentType),
      data: Buffer.from(message.attachment.data),
    };
  }
  return fields;
}
