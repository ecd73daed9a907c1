import { z } from 'zod';
import type { Priority } from '../../domain/notification.js';
import { isAcceptedUrl, isCleanText } from '../../domain/text-rules.js';
import { PUSHOVER_SOUNDS, type PushoverSound } from './sounds.js';

/** Pushover's attachment limit. */
export const MAX_ATTACHMENT_BYTES = 5 * 1024 * 1024;

// Pushover counts characters, not UTF-16 code units: an emoji is one character.
const countChars = (text: string): number => [...text].length;
const chars = (min: number, max: number, what: string) =>
  z
    .string()
    .refine((s) => countChars(s) >= min && countChars(s) <= max, `${what} must be ${min}–${max} characters`)
    .refine(isCleanText, `${what} must be valid Unicode text (no lone surrogate, NUL or noncharacter)`);

/** Options of PushoverService.sendNotification, with Pushover's limits. */
export const SendNotificationSchema = z.strictObject({
  message: chars(1, 1024, 'message'),
  title: chars(0, 250, 'title').optional(),
  priority: z.number().int('priority must be an integer').min(-2, 'priority must be -2…2').max(2, 'priority must be -2…2').optional(),
  // Checked against the app's list by PushoverService (the built-in names until loadSounds() read it).
  sound: z
    .string()
    .regex(/^[\w-]{1,64}$/, `sound must be one of ${PUSHOVER_SOUNDS.join(', ')}`)
    .optional(),
  url: chars(1, 512, 'url').refine(isAcceptedUrl, 'url must be a URL Pushover opens (http, https, tel:, sms:, mailto: or an app link)').optional(),
  urlTitle: chars(1, 100, 'urlTitle').optional(),
  html: z.boolean().optional(),
  monospace: z.boolean().optional(),
  ttl: z.number().int('ttl must be whole seconds').positive('ttl must be positive').optional(),
  device: z
    .string()
    .regex(/^[\w-]{1,25}(,[\w-]{1,25})*$/, 'device must be Pushover device names (up to 25 of A-Z a-z 0-9 _ -), comma-separated')
    .optional(),
  attachment: z
    .strictObject({
      filename: chars(1, 255, 'attachment.filename'),
      contentType: z.string().regex(/^image\/[\w.+-]+$/, 'attachment.contentType must be an image/* type'),
      data: z
        .custom<Uint8Array>((value) => value instanceof Uint8Array, 'attachment.data must be a Buffer or Uint8Array')
        .refine((d) => d instanceof Uint8Array && d.byteLength > 0 && d.byteLength <= MAX_ATTACHMENT_BYTES, 'attachment.data must be 1 byte to 5 MiB'),
    })
    .optional(),
  retry: z.number().int().min(30, 'retry must be at least 30 seconds').optional(),
  expire: z.number().int().min(1).max(10800, 'expire must be at most 10800 seconds').optional(),
});

/** What PushoverService.sendNotification accepts; limits are Pushover's and are checked before sending. */
export interface SendNotificationOptions {
  /** 1–1024 characters. */
  message: string;
  /** Up to 250 characters; Pushover shows the application name when absent. */
  title?: string;
  /** -2 lowest, -1 low, 0 normal (default), 1 high, 2 emergency (repeats until acknowledged). */
  priority?: Priority;
  /** A built-in sound, or one of the app's custom sounds once `loadSounds()` read them. */
  // `string & {}` keeps the built-in names as suggestions while accepting any other name.
  sound?: PushoverSound | (string & {});
  /** http(s), tel:, sms:, mailto: or an app link, up to 512 characters; never javascript: or data:. */
  url?: string;
  /** Up to 100 characters. */
  urlTitle?: string;
  /** Message is HTML (Pushover's subset). */
  html?: boolean;
  /** Message in a monospace font (not with html). */
  monospace?: boolean;
  /** Seconds after which Pushover deletes the message from devices. */
  ttl?: number;
  /** Device name(s) of the user, comma-separated; all devices when absent. */
  device?: string;
  /** An image, up to 5 MiB, shown with the notification. */
  attachment?: { filename: string; contentType: string; data: Uint8Array };
  /** Priority 2 only: seconds between repeats, at least 30 (default 60). */
  retry?: number;
  /** Priority 2 only: seconds until repeats stop, at most 10800 (default 3600). */
  expire?: number;
}

// Fails to compile if the interface and the schema drift apart.
const _schemaAcceptsOptions = (options: SendNotificationOptions): z.input<typeof SendNotificationSchema> => options;
