import { describe, expect, it } from 'vitest';
import { isoNow, ManualClock, setRepeatingTimer, sleep, systemClock } from '../src/index.js';

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
    expect(fired).toEqual([
      ['a', 10],
      ['a2', 15],
      ['b', 20],
    ]);
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

describe('setRepeatingTimer', () => {
  it('fires every interval as time moves and stops when cancelled', () => {
    const clock = new ManualClock(0);
    const fired: number[] = [];
    const timer = setRepeatingTimer(clock, () => fired.push(clock.now()), 10);
    clock.advance(35);
    expect(fired).toEqual([10, 20, 30]);
    timer.cancel();
    clock.advance(100);
    expect(fired).toEqual([10, 20, 30]);
    expect(clock.timers).toBe(0);
  });

  it('stops when its callback cancels it', () => {
    const clock = new ManualClock(0);
    let runs = 0;
    const timer = setRepeatingTimer(clock, () => (++runs === 2 ? timer.cancel() : undefined), 10);
    clock.advance(100);
    expect(runs).toBe(2);
    expect(clock.timers).toBe(0);
  });
});

describe('isoNow and sleep', () => {
  it('reads the clock as ISO 8601 and resolves a sleep when the clock passes it', async () => {
    const clock = new ManualClock(Date.parse('2026-03-04T05:06:07.008Z'));
    expect(isoNow(clock)).toBe('2026-03-04T05:06:07.008Z');
    let woke = false;
    const slept = sleep(clock, 50).then(() => (woke = true));
    clock.advance(49);
    await Promise.resolve();
    expect(woke).toBe(false);
    clock.advance(1);
    await slept;
    expect(woke).toBe(true);
  });
});
