import { describe, expect, it } from 'vitest';
import { endAlarm, type Emergency } from '../../src/domain/notification.js';

const ringing: Emergency = { retry: 60, expire: 3600, callback: 'https://example.org/ack', tags: 'kitchen' };

describe('endAlarm', () => {
  it('adds the end after the settings, in the order the history has always stored it', () => {
    const acknowledged = endAlarm(ringing, { acknowledgedAt: '2026-11-24T10:00:00.000Z', acknowledgedBy: 'alice', acknowledgedByDevice: 'iphone' });
    expect(JSON.stringify(acknowledged)).toBe(
      '{"retry":60,"expire":3600,"callback":"https://example.org/ack","tags":"kitchen","acknowledgedAt":"2026-11-24T10:00:00.000Z","acknowledgedBy":"alice","acknowledgedByDevice":"iphone"}',
    );
    expect(endAlarm(ringing, { expiredAt: '2026-11-24T11:00:00.000Z' })).toEqual({ ...ringing, expiredAt: '2026-11-24T11:00:00.000Z' });
  });

  it('replaces an earlier end instead of keeping two', () => {
    const acknowledged = endAlarm(ringing, { acknowledgedAt: '2026-11-24T10:00:00.000Z', acknowledgedBy: 'alice', acknowledgedByDevice: 'iphone' });
    expect(endAlarm(acknowledged, { cancelledAt: '2026-11-24T10:05:00.000Z' })).toEqual({ ...ringing, cancelledAt: '2026-11-24T10:05:00.000Z' });
  });
});
