import type { SoundList } from '../../domain/push-provider.js';
import { PUSHOVER_SOUND_NAMES } from './sounds.js';
import { getSounds, type ApiAccess } from './pushover-api.js';

const DAY_MS = 24 * 60 * 60_000;
const RETRY_MS = 10 * 60_000;

/** The application's sounds from Pushover's sounds API: read at start, then daily; Pushover's built-in list until then. */
export class SoundCatalog {
  #list: SoundList = { sounds: { ...PUSHOVER_SOUND_NAMES }, source: 'built-in', fetchedAt: null };
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;

  list(): SoundList {
    return { ...this.#list, sounds: { ...this.#list.sounds } };
  }

  /** Reads the list now and schedules the next read (a day later, or 10 minutes after a failure). */
  refresh(access: ApiAccess, onError: (error: unknown) => void): Promise<void> {
    this.#running ??= getSounds(access)
      .then(
        (sounds) => {
          this.#list = { sounds, source: 'pushover', fetchedAt: new Date().toISOString() };
          this.#schedule(access, onError, DAY_MS);
        },
        (error: unknown) => {
          onError(error);
          this.#schedule(access, onError, RETRY_MS);
        },
      )
      .finally(() => (this.#running = undefined));
    return this.#running;
  }

  stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    return this.#running ?? Promise.resolve();
  }

  #schedule(access: ApiAccess, onError: (error: unknown) => void, delayMs: number): void {
    if (this.#stopped) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.refresh(access, onError), delayMs);
    this.#timer.unref();
  }
}
