import { describe, expect, it } from 'vitest';
import { isoNow, ManualClock, setChainedTimer, setRepeatingTimer, sleep, systemClock, type Clock } from '../src/index.js';

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

const DAY = 24 * 60 * 60 * 1000;

describe('timers longer than setTimeout takes (2³¹−1 ms)', () => {
  it('a 30-day timer on the manual clock fires after 30 days, not at once, and never arms a raw delay past the limit', () => {
    const clock = new ManualClock(0);
    const fired: number[] = [];
    clock.setTimer(() => fired.push(clock.now()), 30 * DAY);
    clock.advance(DAY);
    clock.advance(28 * DAY);
    expect(fired).toEqual([]);
    clock.advance(DAY);
    expect(fired).toEqual([30 * DAY]);
    expect(clock.timers).toBe(0);
  });

  it('a chained timer cancelled between its links never fires', () => {
    const clock = new ManualClock(0);
    let fired = false;
    const timer = clock.setTimer(() => (fired = true), 60 * DAY);
    clock.advance(26 * DAY);
    timer.cancel();
    clock.advance(60 * DAY);
    expect(fired).toBe(false);
    expect(clock.timers).toBe(0);
  });

  it('setChainedTimer asks its base only for delays it can take', () => {
    const base = new ManualClock(0);
    const asked: number[] = [];
    const capped: Clock = { now: () => base.now(), setTimer: (cb, ms) => (asked.push(ms), base.setTimer(cb, ms)) };
    let fired = 0;
    setChainedTimer(capped, () => fired++, 250, undefined, 100);
    base.advance(249);
    expect(fired).toBe(0);
    base.advance(1);
    expect(fired).toBe(1);
    expect(asked).toEqual([100, 100, 50]);
  });

  it('the system clock arms a 30-day timer without an overflow warning and without firing it', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    let fired = false;
    const timer = systemClock.setTimer(() => (fired = true), 30 * DAY);
    await new Promise<void>((resolve) => systemClock.setTimer(resolve, 20));
    timer.cancel();
    process.off('warning', onWarning);
    expect(warnings).not.toContain('TimeoutOverflowWarning');
    expect(fired).toBe(false);
  });
});
