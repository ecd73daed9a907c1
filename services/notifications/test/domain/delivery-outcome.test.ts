import { describe, expect, it } from 'vitest';
import { failedDelivery, retryDelayMs } from '../../src/domain/delivery-outcome.js';
import { DeliveryError } from '../../src/domain/push-provider.js';

const policy = { minDelayMs: 5_000, maxDelayMs: 60_000, maxAttempts: 4 };
const at = new Date('2026-01-01T00:00:00.000Z');

describe('retryDelayMs', () => {
  it('starts at the minimum (Pushover: 5 s), doubles, and stops at the cap, with at most 10 % jitter', () => {
    for (let i = 0; i < 50; i++) {
      const first = retryDelayMs(policy, 1);
      expect(first).toBeGreaterThanOrEqual(5_000);
      expect(first).toBeLessThanOrEqual(5_500);
      expect(retryDelayMs(policy, 3)).toBeGreaterThanOrEqual(20_000);
      expect(retryDelayMs(policy, 30)).toBeLessThanOrEqual(66_000);
    }
  });
});

describe('failedDelivery', () => {
  it('schedules a retryable failure from the moment it failed', () => {
    const failedAt = new Date(at.getTime() + 10_000);
    const delivery = failedDelivery(new DeliveryError('Pushover answered 502', true), 1, at, policy, failedAt);
    expect(delivery).toMatchObject({ status: 'pending', attempts: 1, error: 'Pushover answered 502', lastAttemptAt: at.toISOString() });
    expect(Date.parse(delivery.nextAttemptAt!) - failedAt.getTime()).toBeGreaterThanOrEqual(5_000);
  });

  it("keeps Pushover's errors for a permanent failure", () => {
    const err = new DeliveryError('Pushover answered 400', false, { status: 400, errors: ['user key is invalid'] });
    expect(failedDelivery(err, 1, at, policy)).toEqual({
      status: 'failed',
      attempts: 1,
      error: 'Pushover answered 400: user key is invalid',
      lastAttemptAt: at.toISOString(),
    });
  });

  it('does not repeat errors the message already contains', () => {
    const err = new DeliveryError('Pushover rejected: user key is invalid', false, { errors: ['user key is invalid'] });
    expect(failedDelivery(err, 1, at, policy).error).toBe('Pushover rejected: user key is invalid');
  });

  it('retries an unexpected error, and gives up at the maximum attempts', () => {
    expect(failedDelivery(new Error('boom'), 1, at, policy).status).toBe('pending');
    expect(failedDelivery(new Error('boom'), 4, at, policy)).toMatchObject({ status: 'failed', error: 'Gave up after 4 attempts: boom' });
  });
});
