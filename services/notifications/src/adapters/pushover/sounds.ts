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

/** The built-in sounds with the descriptions Pushover gives them, until the app's own list is read. */
export const PUSHOVER_SOUND_NAMES: Record<PushoverSound, string> = {
  pushover: 'Pushover (default)',
  bike: 'Bike',
  bugle: 'Bugle',
  cashregister: 'Cash Register',
  classical: 'Classical',
  cosmic: 'Cosmic',
  falling: 'Falling',
  gamelan: 'Gamelan',
  incoming: 'Incoming',
  intermission: 'Intermission',
  magic: 'Magic',
  mechanical: 'Mechanical',
  pianobar: 'Piano Bar',
  siren: 'Siren',
  spacealarm: 'Space Alarm',
  tugboat: 'Tug Boat',
  alien: 'Alien Alarm (long)',
  climb: 'Climb (long)',
  persistent: 'Persistent (long)',
  echo: 'Pushover Echo (long)',
  updown: 'Up Down (long)',
  vibrate: 'Vibrate Only',
  none: 'None (silent)',
};
