import type { Clock } from '../../src/domain/clock.js';

/** A clock that moves only when told to. */
export class ManualClock implements Clock {
  constructor(private time = Date.parse('2026-01-01T00:00:00Z')) {}

  now(): number {
    return this.time;
  }

  advance(ms: number): void {
    this.time += ms;
  }
}
