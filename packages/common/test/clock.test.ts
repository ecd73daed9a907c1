import { describe, expect, it } from 'vitest';
import { ManualClock, systemClock } from '../src/index.js';

describe('ManualClock', () => {
  it('fires timers in time order as it advances, each at its own time, including timers they arm', () => {
    const clock = new ManualClock(0);
    const fired: Array<[string, number]> = [];
    clock.setTimer(() => fired.push(['b', clock.now()]), 20);
    clock.setTimer(() => {
      fired.push(['a', clock.now()]);
      clock.setTimer(() => fired.push(['a2', clock.now()]), 5);
    }, 10);
    const cancelled = clock.setTimer(() => fired.push(['never', clock.now()]), 15);
    cancelled.cancel();
    clock.advance(14);
    expect(fired).toEqual([['a', 10]]);
    expect(clock.now()).toBe(14);
    clock.advance(100);
    expect(fired).toEqual([['a', 10], ['a2', 15], ['b', 20]]);
    expect(clock.timers).toBe(0);
  });
});

describe('systemClock', () => {
  it('fires a timer and cancels another', async () => {
    let cancelledRan = false;
    systemClock.setTimer(() => (cancelledRan = true), 1).cancel();
    await new Promise<void>((resolve) => systemClock.setTimer(resolve, 5));
    expect(cancelledRan).toBe(false);
    expect(Math.abs(systemClock.now() - Date.now())).toBeLessThan(1000);
  });
});
