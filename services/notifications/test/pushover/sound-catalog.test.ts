import { afterEach, describe, expect, it, vi } from 'vitest';
import { resolveEndpoint } from '../../src/adapters/pushover/pushover-request.js';
import { SoundCatalog } from '../../src/adapters/pushover/sound-catalog.js';
import { startFakePushoverApi } from './fake-pushover-api.js';
import { API_TOKEN, USER_KEY } from './pushover-test-kit.js';

const HOUR = 3_600_000;

/** Lets the fake's real HTTP round trip finish while the timers are fake. */
async function settle(until: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !until(); i += 1) await new Promise((resolve) => setImmediate(resolve));
}

describe('SoundCatalog', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('reads the list again a day later, and ten minutes after a failed read', async () => {
    const fake = await startFakePushoverApi({ token: API_TOKEN, users: { [USER_KEY]: [] }, sounds: { pushover: 'Pushover (default)' } });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const catalog = new SoundCatalog();
    const errors: unknown[] = [];
    const access = { endpoint: resolveEndpoint(fake.url), token: API_TOKEN, timeoutMs: 5_000, redact: (text: string) => text };
    try {
      await catalog.refresh(access, (error) => errors.push(error));
      expect(fake.count('sounds')).toBe(1);

      await vi.advanceTimersByTimeAsync(23 * HOUR);
      expect(fake.count('sounds')).toBe(1);
      fake.failSounds(500);
      await vi.advanceTimersByTimeAsync(HOUR);
      await settle(() => errors.length === 1);
      expect(fake.count('sounds')).toBe(2);
      expect(catalog.list().source).toBe('pushover');

      fake.failSounds(200);
      await vi.advanceTimersByTimeAsync(10 * 60_000);
      await settle(() => fake.count('sounds') === 3);
      expect(fake.count('sounds')).toBe(3);
      expect(errors).toHaveLength(1);
    } finally {
      await catalog.stop();
      vi.useRealTimers();
      await fake.close();
    }
  });
});
