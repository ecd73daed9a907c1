import { randomFillSync } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const RANDOM_BYTES = 10;
// One call into the CSPRNG fills ids for a while instead of one call (and a hex string and a BigInt) per id.
const pool = Buffer.alloc(RANDOM_BYTES * 256);
let poolOffset = pool.length;

function encodeTime(ms: number): string {
  let out = '';
  for (let i = 0; i < 10; i++) {
    out = CROCKFORD[ms % 32]! + out;
    ms = Math.floor(ms / 32);
  }
  return out;
}

// 80 bits as 16 characters of 5 bits, most significant first (the same digits as the number in base 32).
function encodeRandom(bytes: Uint8Array, at: number): string {
  let out = '';
  for (let group = 0; group < 2; group++) {
    // Five bytes are 40 bits: eight characters.
    const o = at + group * 5;
    const high = bytes[o]!;
    const low = bytes[o + 1]! * 0x1000000 + bytes[o + 2]! * 0x10000 + bytes[o + 3]! * 0x100 + bytes[o + 4]!;
    out +=
      CROCKFORD[high >> 3]! +
      CROCKFORD[((high & 7) << 2) | Math.floor(low / 0x40000000)]! +
      CROCKFORD[(low >>> 25) & 31]! +
      CROCKFORD[(low >>> 20) & 31]! +
      CROCKFORD[(low >>> 15) & 31]! +
      CROCKFORD[(low >>> 10) & 31]! +
      CROCKFORD[(low >>> 5) & 31]! +
      CROCKFORD[low & 31]!;
  }
  return out;
}

/** The id of `ms` and the 10 random bytes at `bytes[at]`. */
export function encodeNotificationId(ms: number, bytes: Uint8Array, at = 0): string {
  return encodeTime(ms) + encodeRandom(bytes, at);
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
