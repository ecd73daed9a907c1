import { describe, expect, it } from 'vitest';
import { createPushProvider } from '../../src/adapters/pushover/create-push-provider.js';
import { DisabledProvider } from '../../src/adapters/pushover/disabled.provider.js';
import { PushoverProvider } from '../../src/adapters/pushover/pushover.provider.js';
import { DeliveryError } from '../../src/domain/push-provider.js';
import { API_TOKEN, USER_KEY } from './pushover-test-kit.js';

describe('createPushProvider', () => {
  it.each([
    ['no keys', {}],
    ['only a user key', { userKey: USER_KEY }],
    ['only an API token', { apiToken: API_TOKEN }],
    ['blank keys', { userKey: '  ', apiToken: '' }],
  ])('returns a disabled provider given %s', (_what, config) => {
    const provider = createPushProvider(config);

    expect(provider).toBeInstanceOf(DisabledProvider);
    expect(provider.enabled).toBe(false);
    expect(provider.status()).toEqual({ enabled: false, lastSuccessAt: null, lastError: null, quota: null });
  });

  it('returns an enabled Pushover provider given both keys', () => {
    const provider = createPushProvider({ userKey: USER_KEY, apiToken: API_TOKEN, apiUrl: 'http://127.0.0.1:9' });

    expect(provider).toBeInstanceOf(PushoverProvider);
    expect(provider.enabled).toBe(true);
    expect(provider.status().enabled).toBe(true);
  });

  it('a disabled provider rejects a send as not retryable, without any network call', async () => {
    const error = await new DisabledProvider().send().catch((e: unknown) => e);

    expect(error).toBeInstanceOf(DeliveryError);
    expect((error as DeliveryError).retryable).toBe(false);
  });
});
