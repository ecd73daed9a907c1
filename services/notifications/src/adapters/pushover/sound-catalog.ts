import { isoNow, SingleFlight, systemClock, type Clock, type Timer } from '@homeops/common';
import type { SoundList } from '../../domain/push-provider.js';
import { PUSHOVER_SOUND_NAMES } from './sounds.js';
import { getSounds, type ApiAccess } from './pushover-api.js';

const DAY_MS = 24 * 60 * 60_000;
const RETRY_MS = 10 * 60_000;

/** The application's sounds from Pushover's sounds API: read at start, then daily; Pushover's built-in list until then. */
export class SoundCatalog {
  #list: SoundList = { sounds: { ...PUSHOVER_SOUND_NAMES }, source: 'built-in', fetchedAt: null };
  #timer: Timer | undefined;
  readonly #running = new SingleFlight<void>();
  #stopped = false;

  constructor(private readonly clock: Clock = systemClock) {}

  list(): SoundList {
    return { ...this.#list, sounds: { ...this.#list.sounds } };
  }

  /** Reads the list now and schedules the next read (a day later, or 10 minutes after a failure). */
  refresh(access: ApiAccess, onError: (error: unknown) => void): Promise<void> {
    return this.#running.run(() =>
      getSounds(access).then(
        (sounds) => {
          this.#list = { sounds, source: 'pushover', fetchedAt: isoNow(this.clock) };
          this.#schedule(access, onError, DAY_MS);
        },
        (error: unknown) => {
          onError(error);
          this.#schedule(access, onError, RETRY_MS);
        },
      ),
    );
  }

  stop(): Promise<void> {
    this.#stopped = true;
    this.#timer?.cancel();
    return this.#running.current ?? Promise.resolve();
  }

  #schedule(access: ApiAccess, onError: (error: unknown) => void, delayMs: number): void {
    if (this.#stopped) return;
    this.#timer?.cancel();
    this.#timer = this.clock.setTimer(() => void this.refresh(access, onError), delayMs);
  }
}
