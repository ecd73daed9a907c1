/** The time source of the domain; tests pass a controllable one. */
export interface Clock {
  now(): number;
}

/** The wall clock. */
export const systemClock: Clock = { now: () => Date.now() };
