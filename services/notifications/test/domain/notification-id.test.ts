import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { encodeNotificationId, newNotificationId } from '../../src/domain/notification-id.js';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

// The straightforward definition: the number in base 32, most significant digit first.
function reference(value: bigint, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    out = CROCKFORD[Number(value & 31n)] + out;
    value >>= 5n;
  }
  return out;
}

describe('notification ids', () => {
  it('encode 48 bits of milliseconds and 80 random bits exactly like their base-32 digits', () => {
    const edges = [Buffer.alloc(10), Buffer.alloc(10, 0xff), Buffer.from([0x80, 0, 0, 0, 1, 0x7f, 0xff, 0xff, 0xff, 0xfe])];
    const samples = [...edges, ...Array.from({ length: 500 }, () => randomBytes(10))];
    for (const [i, bytes] of samples.entries()) {
      const ms = i === 1 ? 2 ** 48 - 1 : Date.UTC(2026, 0, 1) + i * 7_919_113;
      const expected = reference(BigInt(ms), 10) + reference(BigInt(`0x${bytes.toString('hex')}`), 16);
      expect(encodeNotificationId(ms, bytes)).toBe(expected);
    }
  });

  it('are 26 Crockford characters, sort by creation time and do not repeat', () => {
    const ids = Array.from({ length: 5_000 }, (_, i) => newNotificationId(new Date(Date.UTC(2026, 0, 1) + Math.floor(i / 10))));
    for (const id of ids) expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(new Set(ids).size).toBe(ids.length);
    const times = ids.map((id) => id.slice(0, 10));
    expect([...times].sort()).toEqual(times);
  });
});
