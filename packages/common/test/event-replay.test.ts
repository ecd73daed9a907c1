import { describe, expect, it } from 'vitest';
import { EventReplay } from '../src/index.js';

describe('EventReplay', () => {
  it('answers the events after an id, filtered, oldest first', () => {
    const replay = new EventReplay<{ who: string }>(10);
    const ids = ['a', 'b', 'a', 'a'].map((who) => replay.push({ who }));

    expect(replay.since(ids[0]!, (d) => d.who === 'a')).toEqual([
      { id: ids[2], data: { who: 'a' } },
      { id: ids[3], data: { who: 'a' } },
    ]);
    expect(replay.since(ids[3]!)).toEqual([]);
    expect(replay.since(replay.start)).toHaveLength(4);
  });

  it('says reload (undefined) when missed events were dropped, or for an id it never gave', () => {
    const replay = new EventReplay<number>(3);
    const ids = [0, 1, 2, 3, 4, 5].map((i) => replay.push(i));

    expect(replay.since(ids[2]!)).toEqual([
      { id: ids[3], data: 3 },
      { id: ids[4], data: 4 },
      { id: ids[5], data: 5 },
    ]);
    expect(replay.since(ids[1]!)).toBeUndefined();
    expect(replay.since(`${replay.epoch}-7`)).toBeUndefined();
    for (const id of ['abc', '-1', '3', `${replay.epoch}-x`]) expect(replay.since(id)).toBeUndefined();
  });

  it('never takes an id of another process (a restart, another instance) for one of its own', () => {
    const before = new EventReplay<number>(10);
    const now = new EventReplay<number>(10);
    const old = [1, 2, 3].map((i) => before.push(i));
    [1, 2, 3, 4].forEach((i) => now.push(i));

    expect(now.epoch).not.toBe(before.epoch);
    expect(now.since(old[1]!)).toBeUndefined();
  });
});
