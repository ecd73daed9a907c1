import { ConfigError, loadConfig } from '@homeops/common';
import { describe, expect, it } from 'vitest';
import { ConfigSchema, parseConfig } from '../src/config.js';

describe('config', () => {
  it('has working defaults: port 9095, ./data/notifications.yaml, Pushover API, delivery off', () => {
    const config = parseConfig();
    expect(config.RETENTION_MAX_AGE_DAYS).toBeUndefined();
    // No HOST: the service settles it at start (loopback without a key).
    expect(config.HOST).toBeUndefined();
    expect(config.PROVIDER_USER_KEY).toBeUndefined();
    expect(config.PROVIDER_API_TOKEN).toBeUndefined();
    expect(config).toMatchObject({
      PORT: 9095,
      ALLOW_OPEN_LAN: false,
      ALLOWED_HOSTS: [],
      STORAGE_PATH: './data/notifications.yaml',
      PROVIDER_API_URL: 'https://api.pushover.net',
      DELIVERY_RETRY_MIN_MS: 5000,
    });
  });

  it('lets NOTIFICATIONS_PORT win over PORT', () => {
    const env = { PORT: '1000', NOTIFICATIONS_PORT: '2000' };
    expect(loadConfig(ConfigSchema, { service: 'notifications', env, aliases: { PORT: [{ name: 'NOTIFICATIONS_PORT', wins: true }] } }).PORT).toBe(2000);
  });

  it('accepts the PUSHOVER_* names of the original service, PROVIDER_* winning', () => {
    expect(parseConfig({ PUSHOVER_USER_KEY: 'u1', PUSHOVER_API_TOKEN: 't1' })).toMatchObject({ PROVIDER_USER_KEY: 'u1', PROVIDER_API_TOKEN: 't1' });
    expect(parseConfig({ PUSHOVER_USER_KEY: 'u1', PUSHOVER_API_TOKEN: 't1', PROVIDER_USER_KEY: 'u2', PROVIDER_API_TOKEN: 't2' })).toMatchObject({
      PROVIDER_USER_KEY: 'u2',
      PROVIDER_API_TOKEN: 't2',
    });
  });

  it('refuses one key without the other, naming the variables but never their values', () => {
    let error: unknown;
    try {
      parseConfig({ PROVIDER_USER_KEY: 'secret-user-key' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/PROVIDER_API_TOKEN/);
    expect((error as Error).message).not.toMatch(/secret-user-key/);
  });

  it('accepts any http(s) API URL and refuses others', () => {
    expect(parseConfig({ PROVIDER_API_URL: 'http://127.0.0.1:8080/' }).PROVIDER_API_URL).toBe('http://127.0.0.1:8080');
    expect(() => parseConfig({ PROVIDER_API_URL: 'ftp://example.org' })).toThrow(ConfigError);
  });

  it('coerces retention and retry settings and refuses non-positive ones', () => {
    expect(parseConfig({ RETENTION_MAX_AGE_DAYS: '30', RETENTION_MAX_PER_RECIPIENT: '1000' })).toMatchObject({
      RETENTION_MAX_AGE_DAYS: 30,
      RETENTION_MAX_PER_RECIPIENT: 1000,
    });
    expect(() => parseConfig({ RETENTION_MAX_AGE_DAYS: '0' })).toThrow(ConfigError);
    expect(() => parseConfig({ DELIVERY_CONCURRENCY: '3' })).toThrow(ConfigError);
  });

  it('takes a delivery lease only longer than an attempt can take (2 × (provider timeout + 2 s))', () => {
    expect(parseConfig().DELIVERY_LEASE_MS).toBeUndefined();
    expect(parseConfig({ PROVIDER_TIMEOUT_MS: '1000', DELIVERY_LEASE_MS: '6001' }).DELIVERY_LEASE_MS).toBe(6001);
    expect(() => parseConfig({ PROVIDER_TIMEOUT_MS: '1000', DELIVERY_LEASE_MS: '6000' })).toThrow(/DELIVERY_LEASE_MS/);
    expect(() => parseConfig({ DELIVERY_LEASE_MS: '20000' })).toThrow(ConfigError);
  });
});
