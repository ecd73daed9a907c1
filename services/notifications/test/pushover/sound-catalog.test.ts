import { ManualClock } from '@homeops/common';
import { eventually } from '@homeops/test-kit';
import { describe, expect, it } from 'vitest';
import { resolveEndpoint } from '../../src/adapters/pushover/pushover-request.js';
import { SoundCatalog } from '../../src/adapters/pushover/sound-catalog.js';
import { startFakePushoverApi } from './fake-pushover-api.js';
import { API_TOKEN, USER_KEY } from './pushover-test-kit.js';

const HOUR = 3_600_000;

describe('SoundCatalog', () => {
  it('reads the list again a day later, and ten minutes after a failed read', async () => {
    const fake = await startFakePushoverApi({ token: API_TOKEN, users: { [USER_KEY]: [] }, sounds: { pushover: 'Pushover (default)' } });
    const clock = new ManualClock();
    const catalog = new SoundCatalog(clock);
    const errors: unknown[] = [];
    const access = { endpoint: resolveEndpoint(fake.url), token: API_TOKEN, timeoutMs: 5_000, redact: (text: string) => text, clock };
    try {
      await catalog.refresh(access, (error) => errors.push(error));
      expect(fake.count('sounds')).toBe(1);
      expect(clock.timers).toBe(1);

      clock.advance(23 * HOUR);
      expect(fake.count('sounds')).toBe(1);
      expect(clock.timers).toBe(1);
      fake.failSounds(500);
      clock.advance(HOUR);
      // The fake's real HTTP round trip finishes while the clock stands still.
      await eventually(() => errors.length === 1, 'the failed read');
      expect(fake.count('sounds')).toBe(2);
      expect(catalog.list().source).toBe('pushover');

      fake.failSounds(200);
      clock.advance(10 * 60_000);
      await eventually(() => fake.count('sounds') === 3, 'the read ten minutes later');
      expect(fake.count('sounds')).toBe(3);
      expect(errors).toHaveLength(1);
    } finally {
      await catalog.stop();
      await fake.close();
    }
  });
});
