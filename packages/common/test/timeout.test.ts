import { describe, expect, it } from 'vitest';
import { ManualClock, TimeoutError, withTimeout } from '../src/index.js';

/** Whether the promise has settled, checked after the microtasks queued so far have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise<void>((resolve) => setImmediate(resolve));
  return done;
}

describe('withTimeout', () => {
  it('rejects with TimeoutError when its clock passes the limit, without real time passing', async () => {
    const clock = new ManualClock(0);
    const guarded = withTimeout(clock, new Promise<never>(() => {}), 5_000, 'The slow call');
    guarded.catch(() => {});

    clock.advance(4_999);
    expect(await settled(guarded)).toBe(false);
    clock.advance(1);

    const err = await guarded.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err).toMatchObject({ what: 'The slow call', ms: 5_000, message: 'The slow call did not finish within 5000 ms' });
  });

  it('settles with the work when it finishes in time and cancels its timer', async () => {
    const clock = new ManualClock(0);
    let finish!: (value: string) => void;
    const guarded = withTimeout(clock, new Promise<string>((resolve) => (finish = resolve)), 5_000, 'The call');
    expect(clock.timers).toBe(1);

    finish('answer');
    await expect(guarded).resolves.toBe('answer');
    expect(clock.timers).toBe(0);
    clock.advance(10_000);
    await expect(guarded).resolves.toBe('answer');
  });

  it('passes the work’s own rejection through and cancels its timer', async () => {
    const clock = new ManualClock(0);
    const guarded = withTimeout(clock, Promise.reject(new Error('refused')), 5_000, 'The call');

    await expect(guarded).rejects.toThrow('refused');
    expect(clock.timers).toBe(0);
  });
});
