import { AppError } from '@homeops/common';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ByteBudget } from '../../src/http/byte-budget.js';

const MiB = 1024 * 1024;

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

/** Whether the promise has settled, after pending callbacks ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  await vi.advanceTimersByTimeAsync(0);
  return done;
}

describe('ByteBudget', () => {
  it('grants shares while they fit and holds the next until enough is released', async () => {
    const budget = new ByteBudget({ capacity: 16 * MiB, maxWaitMs: 30_000 });
    const first = await budget.acquire(7 * MiB);
    const second = await budget.acquire(7 * MiB);
    const third = budget.acquire(7 * MiB);

    expect(await settled(third)).toBe(false);
    expect(budget.waiting).toBe(1);
    first();
    expect(await settled(third)).toBe(true);
    second();
    (await third)();
    expect(budget.free).toBe(16 * MiB);
  });

  it('serves waiters first come, first served: a small request does not overtake a large one', async () => {
    const budget = new ByteBudget({ capacity: 10 * MiB, maxWaitMs: 30_000 });
    const held = await budget.acquire(6 * MiB);
    const large = budget.acquire(7 * MiB);
    const small = budget.acquire(1 * MiB);

    expect(await settled(small)).toBe(false);
    held();
    expect(await settled(large)).toBe(true);
    expect(await settled(small)).toBe(true);
  });

  it('refuses with SERVER_BUSY and a Retry-After once the wait passes its bound, and lets the next waiter in', async () => {
    const budget = new ByteBudget({ capacity: 8 * MiB, maxWaitMs: 5_000 });
    const held = await budget.acquire(7 * MiB);
    const large = budget.acquire(7 * MiB);
    const small = budget.acquire(1 * MiB);
    const refusal = large.catch((error: unknown) => error);

    await vi.advanceTimersByTimeAsync(5_000);

    const error = await refusal;
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'SERVER_BUSY', status: 503, retryAfterSeconds: expect.any(Number) });
    expect(await settled(small)).toBe(true);
    held();
    (await small)();
    expect(budget.free).toBe(8 * MiB);
  });

  it('forgets a waiter whose client went away', async () => {
    const budget = new ByteBudget({ capacity: 8 * MiB, maxWaitMs: 30_000 });
    const held = await budget.acquire(8 * MiB);
    const gone = new AbortController();
    const waiting = budget.acquire(1 * MiB, gone.signal).catch((error: unknown) => error);

    gone.abort(new Error('client went away'));

    expect(await waiting).toEqual(new Error('client went away'));
    expect(budget.waiting).toBe(0);
    held();
    expect(budget.free).toBe(8 * MiB);
  });

  it('frees a share once however often it is released, and lets a request larger than the whole budget run alone', async () => {
    const budget = new ByteBudget({ capacity: 4 * MiB, maxWaitMs: 30_000 });
    const huge = await budget.acquire(9 * MiB);
    expect(budget.free).toBe(0);

    huge();
    huge();

    expect(budget.free).toBe(4 * MiB);
  });
});
