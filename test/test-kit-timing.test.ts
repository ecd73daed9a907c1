import { describe, expect, it } from 'vitest';
import { assertNoSlower, OutOfTime, Timing, within } from '../packages/test-kit/src/index.js';

// test-kit's timing helpers: the only place a test suite bounds a wall-clock duration.
describe('within', () => {
  it('resolves with the work when it settles in time', async () => {
    await expect(within(5_000, 'the quick work', Promise.resolve('done'))).resolves.toBe('done');
  });

  it('fails with OutOfTime naming the work once the bound passed', async () => {
    const never = new Promise<never>(() => {});
    const err = await within(20, 'the stuck work', never).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutOfTime);
    expect((err as Error).message).toMatch(/^the stuck work took \d+ ms, more than 20 ms$/);
  });

  it('fails work that settles sooner than a lower bound', async () => {
    const err = await within([1_000, 5_000], 'the early work', () => Promise.resolve()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutOfTime);
    expect((err as Error).message).toMatch(/^the early work took \d+ ms, less than 1000 ms$/);
  });

  it("passes the work's own failure through", async () => {
    await expect(within(5_000, 'the failing work', () => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
  });
});

describe('assertNoSlower', () => {
  it('passes a candidate within the margin and fails one past it, naming both timings', async () => {
    const quick = await Timing.of(() => Promise.resolve());
    const slow = await Timing.of(() => new Promise((resolve) => setTimeout(resolve, 30)));
    expect(() => assertNoSlower('the quick one', quick, slow, { factor: 1 })).not.toThrow();
    expect(() => assertNoSlower('the slow one', slow, quick, { factor: 2, slackMs: 5 })).toThrow(OutOfTime);
    expect(() => assertNoSlower('the slow one', slow, quick, { factor: 2, floorMs: 10_000 })).not.toThrow();
    expect(Timing.slowest([quick, slow])).toBe(slow);
  });
});
