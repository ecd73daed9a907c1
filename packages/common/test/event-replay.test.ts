import { describe, expect, it } from 'vitest';
import { EventReplay } from '../src/index.js';

describe('EventReplay', () => {
  it('answers the events after an id, filtered, oldest first', () => {
    const replay = new EventReplay<{ who: string }>(10);
    for (const who of ['a', 'b', 'a', 'a']) replay.push({ who });

    expect(replay.since('1', (d) => d.who === 'a')).toEqual([
      { id: 3, data: { who: 'a' } },
      { id: 4, data: { who: 'a' } },
    ]);
    expect(replay.since('4')).toEqual([]);
  });

  it('says reload (undefined) when missed events were dropped, or for an id it never gave', () => {
    const replay = new EventReplay<number>(3);
    for (let i = 0; i < 6; i += 1) replay.push(i);

    expect(replay.since('3')).toEqual([
      { id: 4, data: 3 },
      { id: 5, data: 4 },
      { id: 6, data: 5 },
    ]);
    expect(replay.since('2')).toBeUndefined();
    expect(replay.since('7')).toBeUndefined();
    expect(replay.since('abc')).toBeUndefined();
    expect(replay.since('-1')).toBeUndefined();
  });
});
