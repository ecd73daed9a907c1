/** Pushover's 23 built-in notification sounds, in the order Pushover lists them. */
export const PUSHOVER_SOUNDS = [
  'pushover',
  'bike',
  'bugle',
  'cashregister',
  'classical',
  'cosmic',
  'falling',
  'gamelan',
  'incoming',
  'intermission',
  'magic',
  'mechanical',
  'pianobar',
  'siren',
  'spacealarm',
  'tugboat',
  'alien',
  'climb',
  'persistent',
  'echo',
  'updown',
  'vibrate',
  'none',
] as const;

/** One of Pushover's built-in sound names. */
export type PushoverSound = (typeof PUSHOVER_SOUNDS)[number];

/** True when `value` names a built-in Pushover sound. */
export function isPushoverSound(value: unknown): value is PushoverSound {
  return typeof value === 'string' && (PUSHOVER_SOUNDS as readonly string[]).includes(value);
}
