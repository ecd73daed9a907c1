import { ConfigError } from '@homeops/common';
import { describe, expect, it } from 'vitest';
import { deviceServiceOptions, parseConfig } from '../src/config.js';

const SECRET = 'hunter2-very-secret';

function problemsOf(env: Record<string, string>): string {
  try {
    parseConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('config', () => {
  it('runs the simulator by default when no credentials are set, and says so', () => {
    const config = parseConfig({});

    expect(config).toMatchObject({
      PORT: 3000,
      CLOUD_BACKEND: 'simulator',
      simulatorByDefault: true,
      CLOUD_API_URL: 'https://iotx.meross.com',
      CLOUD_TOKEN_FILE: './data/cloud-token.json',
      CLOUD_MAX_MESSAGES_PER_HOUR: 180,
      CLOUD_MAX_MESSAGES_PER_MINUTE: 15,
      CLOUD_SYNC_INTERVAL_SECONDS: 300,
      CLOUD_BROKER_RECONNECT_MS: 5_000,
      CLOUD_RETRY_BACKOFF_MS: 5_000,
    });
  });

  it('chooses meross when credentials are set, and accepts the MEROSS_ names of the original service', () => {
    const config = parseConfig({ MEROSS_EMAIL: 'me@example.com', MEROSS_PASSWORD: SECRET });

    expect(config).toMatchObject({ CLOUD_BACKEND: 'meross', CLOUD_EMAIL: 'me@example.com', CLOUD_PASSWORD: SECRET });
    expect(config.simulatorByDefault).toBe(false);
  });

  it('lets the CLOUD_ names win over the MEROSS_ ones', () => {
    const config = parseConfig({
      CLOUD_EMAIL: 'cloud@example.com',
      CLOUD_PASSWORD: 'a',
      MEROSS_EMAIL: 'old@example.com',
      MEROSS_PASSWORD: 'b',
    });

    expect([config.CLOUD_EMAIL, config.CLOUD_PASSWORD]).toEqual(['cloud@example.com', 'a']);
  });

  it('lets DEVICE_CONTROL_PORT win over PORT', () => {
    expect(parseConfig({ PORT: '4000', DEVICE_CONTROL_PORT: '4100' }).PORT).toBe(4100);
  });

  it('refuses CLOUD_BACKEND=meross without credentials', () => {
    expect(problemsOf({ CLOUD_BACKEND: 'meross' })).toContain('CLOUD_BACKEND: meross needs CLOUD_EMAIL and CLOUD_PASSWORD');
  });

  it('refuses a password without an e-mail, without printing the password', () => {
    const message = problemsOf({ CLOUD_PASSWORD: SECRET });

    expect(message).toContain('CLOUD_EMAIL');
    expect(message).not.toContain(SECRET);
  });

  it.each([
    ['https://iotx-eu.meross.com', 'https://iotx-eu.meross.com'],
    ['https://127.0.0.2:8443/', 'https://127.0.0.2:8443'],
  ])('accepts the cloud API URL %s', (url, expected) => {
    expect(parseConfig({ CLOUD_API_URL: url }).CLOUD_API_URL).toBe(expected);
  });

  it.each([
    ['http://iotx.meross.com', 'must use https://'],
    [`https://me:${SECRET}@iotx.meross.com`, 'must not contain credentials'],
    ['https://iotx.meross.com/v1', 'must be only scheme, host and port'],
    ['not a url', 'must be a URL'],
  ])('refuses the cloud API URL %s without echoing it', (url, problem) => {
    const message = problemsOf({ CLOUD_API_URL: url });

    expect(message).toContain(`CLOUD_API_URL: ${problem}`);
    expect(message).not.toContain(SECRET);
  });

  it('lists every bad number at once', () => {
    const message = problemsOf({ CLOUD_MAX_MESSAGES_PER_HOUR: '0', CLOUD_SYNC_INTERVAL_SECONDS: '5', CLOUD_COMMAND_TIMEOUT_MS: 'x' });

    expect(message).toContain('CLOUD_MAX_MESSAGES_PER_HOUR');
    expect(message).toContain('CLOUD_SYNC_INTERVAL_SECONDS: must be 0 (off) or at least 10');
    expect(message).toContain('CLOUD_COMMAND_TIMEOUT_MS');
  });

  it('refuses an MFA code that is not six digits, without echoing it', () => {
    const message = problemsOf({ CLOUD_MFA_CODE: '12ab' });

    expect(message).toContain('CLOUD_MFA_CODE: must be the 6-digit code');
    expect(message).not.toContain('12ab');
  });

  it('takes a broker reconnect wait and an API retry backoff of at least 100 ms', () => {
    expect(parseConfig({ CLOUD_BROKER_RECONNECT_MS: '250', CLOUD_RETRY_BACKOFF_MS: '500' })).toMatchObject({
      CLOUD_BROKER_RECONNECT_MS: 250,
      CLOUD_RETRY_BACKOFF_MS: 500,
    });
    const problems = problemsOf({ CLOUD_BROKER_RECONNECT_MS: '99', CLOUD_RETRY_BACKOFF_MS: '99' });
    expect(problems).toContain('CLOUD_BROKER_RECONNECT_MS');
    expect(problems).toContain('CLOUD_RETRY_BACKOFF_MS');
  });

  it('takes the 1.0 name CLOUD_MAX_COMMANDS_PER_MINUTE for the burst window', () => {
    expect(parseConfig({ CLOUD_MAX_COMMANDS_PER_MINUTE: '12' }).CLOUD_MAX_MESSAGES_PER_MINUTE).toBe(12);
  });

  it('refuses a burst window larger than the hourly budget', () => {
    const message = problemsOf({ CLOUD_MAX_MESSAGES_PER_HOUR: '10', CLOUD_MAX_MESSAGES_PER_MINUTE: '20' });

    expect(message).toContain('CLOUD_MAX_MESSAGES_PER_MINUTE: must not be more than CLOUD_MAX_MESSAGES_PER_HOUR');
  });

  it('maps the limits and timings onto the device service options', () => {
    const config = parseConfig({
      CLOUD_MAX_MESSAGES_PER_HOUR: '120',
      CLOUD_MAX_MESSAGES_PER_MINUTE: '12',
      CLOUD_SYNC_INTERVAL_SECONDS: '0',
      CLOUD_SYNC_MIN_GAP_SECONDS: '45',
      CLOUD_BACKGROUND_READ_INTERVAL_SECONDS: '90',
    });

    expect(deviceServiceOptions(config)).toEqual({
      maxMessagesPerHour: 120,
      maxMessagesPerMinute: 12,
      syncIntervalSeconds: 0,
      syncMinGapSeconds: 45,
      backgroundReadIntervalSeconds: 90,
      requestTimeoutMs: 10_000,
      commandTimeoutMs: 5_000,
    });
  });
});
