import { describe, expect, it } from 'vitest';
import { KeyedSingleFlight, SingleFlight } from '../src/index.js';

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe('SingleFlight', () => {
  it('gives callers during a run the same promise and starts a new run once it settled', async () => {
    const flight = new SingleFlight<number>();
    const first = deferred<number>();
    let starts = 0;
    const a = flight.run(() => (starts++, first.promise));
    const b = flight.run(() => (starts++, Promise.resolve(2)));
    expect(b).toBe(a);
    expect(flight.current).toBe(a);
    first.resolve(1);
    await expect(a).resolves.toBe(1);
    expect(flight.current).toBeUndefined();
    await expect(flight.run(() => (starts++, Promise.resolve(3)))).resolves.toBe(3);
    expect(starts).toBe(2);
  });

  it('clears a run that failed, so the next call tries again', async () => {
    const flight = new SingleFlight<number>();
    await expect(flight.run(() => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(flight.current).toBeUndefined();
    await expect(flight.run(() => Promise.resolve(4))).resolves.toBe(4);
  });
});

describe('KeyedSingleFlight', () => {
  it('shares a run per key, runs different keys side by side, and waits for all of them', async () => {
    const flights = new KeyedSingleFlight<string, string>();
    const a = deferred<string>();
    const b = deferred<string>();
    const runA = flights.run('a', () => a.promise);
    expect(flights.run('a', () => Promise.resolve('again'))).toBe(runA);
    const runB = flights.run('b', () => b.promise);
    expect(flights.size).toBe(2);
    expect(flights.has('a')).toBe(true);
    let settled = false;
    const all = flights.settled().then(() => (settled = true));
    a.resolve('A');
    await expect(runA).resolves.toBe('A');
    expect(flights.has('a')).toBe(false);
    expect(settled).toBe(false);
    b.reject(new Error('B failed'));
    await expect(runB).rejects.toThrow('B failed');
    await all;
    expect(flights.size).toBe(0);
  });
});
