import { createHash, randomFillSync } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const RANDOM_BYTES = 10;
// One call into the CSPRNG fills ids for a while instead of one call (and a hex string and a BigInt) per id.
const pool = Buffer.alloc(RANDOM_BYTES * 256);
let poolOffset = pool.length;

const DIGITS = Uint8Array.from(CROCKFORD, (char) => char.charCodeAt(0));
// Built as character codes and turned into one flat string: adding 26 one-character strings makes a rope that
// every later hash or stringify of the id has to flatten first.
const codes: number[] = Array.from({ length: 26 }, () => 0);

function putTime(ms: number): void {
  for (let i = 9; i >= 0; i--) {
    codes[i] = DIGITS[ms % 32]!;
    ms = Math.floor(ms / 32);
  }
}

// 80 bits as 16 characters of 5 bits, most significant first (the same digits as the number in base 32).
function putRandom(bytes: Uint8Array, at: number): void {
  for (let group = 0; group < 2; group++) {
    // Five bytes are 40 bits: eight characters.
    const o = at + group * 5;
    const high = bytes[o]!;
    const low = bytes[o + 1]! * 0x1000000 + bytes[o + 2]! * 0x10000 + bytes[o + 3]! * 0x100 + bytes[o + 4]!;
    const c = 10 + group * 8;
    codes[c] = DIGITS[high >> 3]!;
    codes[c + 1] = DIGITS[((high & 7) << 2) | Math.floor(low / 0x40000000)]!;
    for (let k = 0; k < 6; k++) codes[c + 2 + k] = DIGITS[(low >>> (25 - 5 * k)) & 31]!;
  }
}

/** The id of `ms` and the 10 random bytes at `bytes[at]`. */
export function encodeNotificationId(ms: number, bytes: Uint8Array, at = 0): string {
  putTime(ms);
  putRandom(bytes, at);
  return String.fromCharCode(...codes);
}

const ID_SHAPE = new RegExp(`^[${CROCKFORD}]{26}$`);

/** True for a string of the shape newNotificationId makes (26 Crockford base-32 digits). */
export function isNotificationId(value: string): boolean {
  return ID_SHAPE.test(value);
}

/** The creation time (ms) an id of newNotificationId carries in its first 10 digits. */
export function notificationIdTime(id: string): number {
  let ms = 0;
  for (let i = 0; i < 10; i++) ms = ms * 32 + CROCKFORD.indexOf(id[i]!);
  return ms;
}

/**
 * A ULID-shaped id: 48 bits of milliseconds then 80 random bits, so ids sort by creation time (stable cursors,
 * readable files) and two ids made in the same millisecond collide with odds of 2^-80.
 */
export function newNotificationId(now: Date): string {
  if (poolOffset + RANDOM_BYTES > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const id = encodeNotificationId(now.getTime(), pool, poolOffset);
  poolOffset += RANDOM_BYTES;
  return id;
}

/**
 * The id of a notification something planned (a scheduled send, a missed heartbeat): the same for every attempt to
 * send it, so a retry after a crash finds it stored (NOTIFICATION_EXISTS) instead of sending it twice.
 */
export function plannedNotificationId(atMs: number, seed: string): string {
  return encodeNotificationId(atMs, createHash('sha256').update(seed).digest(), 0);
}
