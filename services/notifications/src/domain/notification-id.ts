import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

function encode(value: bigint, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    out = CROCKFORD[Number(value & 31n)] + out;
    value >>= 5n;
  }
  return out;
}

/**
 * A ULID-shaped id: 48 bits of milliseconds then 80 random bits, so ids sort by creation time (stable cursors,
 * readable files) and two ids made in the same millisecond collide with odds of 2^-80.
 */
export function newNotificationId(now: Date): string {
  const random = BigInt(`0x${randomBytes(10).toString('hex')}`);
  return encode(BigInt(now.getTime()), 10) + encode(random, 16);
}
