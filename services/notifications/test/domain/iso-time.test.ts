import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTimestamp } from '../../src/domain/iso-time.js';

describe('isoTimestamp', () => {
  it('writes exactly what toISOString writes, in any order of calls', () => {
    const near = fc.integer({ min: 1_700_000_000_000, max: 1_700_000_005_000 });
    const anyTime = fc.integer({ min: -8.64e15, max: 8.64e15 });
    fc.assert(
      fc.property(fc.array(fc.oneof(near, anyTime), { minLength: 1, maxLength: 50 }), (times) => {
        for (const ms of times) expect(isoTimestamp(new Date(ms))).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 300 },
    );
  });

  it('throws for an invalid date, like toISOString', () => {
    expect(() => isoTimestamp(new Date(Number.NaN))).toThrow(RangeError);
  });
});
