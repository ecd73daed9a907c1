import { ManualClock, type Clock } from '@homeops/common';
import { drainEventLoop, eventually } from '@homeops/test-kit';
import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PushoverProvider } from '../../src/adapters/pushover/pushover.provider.js';
import { DeliveryError, type PushMessage } from '../../src/domain/push-provider.js';
import { API_TOKEN, PUSHOVER, USER_KEY, interceptMessage, startLocalServer, rejectionOf } from './pushover-test-kit.js';

const MESSAGE: PushMessage = { title: 'Disk', message: 'Disk almost full', priority: 1 };

function provider(options: { apiUrl?: string; timeoutMs?: number; clock?: Clock } = {}): PushoverProvider {
  return new PushoverProvider({ userKey: USER_KEY, apiToken: API_TOKEN, timeoutMs: 2000, ...options });
}

const failureOf = (promise: Promise<unknown>) => rejectionOf(promise, DeliveryError);

function expectNoSecrets(text: string): void {
  expect(text).not.toContain(USER_KEY);
  expect(text).not.toContain(API_TOKEN);
}

describe('PushoverProvider.send, when Pushover refuses or fails', () => {
  const uncaught = vi.fn();
  beforeEach(() => {
    uncaught.mockReset();
    process.on('uncaughtException', uncaught);
  });
  afterEach(async () => {
    // Give any stray throw from a response handler the chance to surface before checking.
    await new Promise((resolve) => setImmediate(resolve));
    process.off('uncaughtException', uncaught);
    expect(uncaught).not.toHaveBeenCalled();
    nock.cleanAll();
  });

  it("rejects a 400 as not retryable and keeps Pushover's errors text", async () => {
    interceptMessage({
      status: 400,
      body: { user: 'invalid', errors: ['user identifier is not a valid user, group, or subscribed user key'], status: 0, request: 'r' },
    });
    const pushover = provider();

    const error = await failureOf(pushover.send(MESSAGE));

    expect(error.retryable).toBe(false);
    expect(error.details).toMatchObject({ status: 400, errors: ['user identifier is not a valid user, group, or subscribed user key'] });
    expect(error.message).toContain('user identifier is not a valid user');
    expect(pushover.status().lastError?.message).toBe(error.message);
  });

  it('rejects 429 as not retryable and marks the quota as exhausted', async () => {
    interceptMessage({
      status: 429,
      body: { errors: ['application is over its monthly message limit'], status: 0 },
      headers: { 'X-Limit-App-Limit': '10000', 'X-Limit-App-Remaining': '0', 'X-Limit-App-Reset': '1767225600' },
    });
    const pushover = provider();

    const error = await failureOf(pushover.send(MESSAGE));

    expect(error.retryable).toBe(false);
    expect(error.details).toMatchObject({ status: 429, quotaExhausted: true, waitUntil: '2026-01-01T00:00:00.000Z' });
    expect(pushover.status().quota).toEqual({ limit: 10000, remaining: 0, resetAt: '2026-01-01T00:00:00.000Z' });
  });

  it('sends nothing while Pushover said the quota is used up until a reset still ahead, and says until when', async () => {
    const reset = Math.floor(Date.now() / 1000) + 3600;
    interceptMessage({
      status: 200,
      body: { status: 1, request: 'last' },
      headers: { 'X-Limit-App-Limit': '10000', 'X-Limit-App-Remaining': '0', 'X-Limit-App-Reset': String(reset) },
    });
    const pushover = provider();
    await pushover.send(MESSAGE);

    // No interceptor is left: a request now would fail differently (nock refuses it).
    const error = await failureOf(pushover.send(MESSAGE));

    expect(error.details).toEqual({ quotaExhausted: true, waitUntil: new Date(reset * 1000).toISOString() });
    expect(nock.pendingMocks()).toEqual([]);
  });

  it('waits for the start of next month (UTC) when a 429 carries no reset time', async () => {
    interceptMessage({ status: 429, body: { errors: ['over limit'], status: 0 } });

    const error = await failureOf(provider().send(MESSAGE));

    const now = new Date();
    expect(error.details.waitUntil).toBe(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString());
  });

  it('rejects an HTML 502 page as retryable without crashing the process', async () => {
    interceptMessage({ status: 502, body: '<html><body><h1>502 Bad Gateway</h1></body></html>', headers: { 'Content-Type': 'text/html' } });

    const error = await failureOf(provider().send(MESSAGE));

    expect(error.retryable).toBe(true);
    expect(error.details.status).toBe(502);
  });

  it('rejects a 503 with a JSON errors body as retryable', async () => {
    interceptMessage({ status: 503, body: { status: 0, errors: ['temporarily unavailable'] } });

    const error = await failureOf(provider().send(MESSAGE));

    expect(error.retryable).toBe(true);
    expect(error.details.errors).toEqual(['temporarily unavailable']);
  });

  it.each([
    ['an HTML page', '<html>captive portal</html>'],
    ['an empty body', ''],
    ['JSON null, which makes the bare library throw', 'null'],
  ])('rejects a 200 carrying %s as retryable, without crashing', async (_what, body) => {
    interceptMessage({ status: 200, body });

    const error = await failureOf(provider().send(MESSAGE));

    expect(error.retryable).toBe(true);
  });

  it('does not count a 200 with status 0 as success', async () => {
    interceptMessage({ status: 200, body: { status: 0, errors: ['message cannot be blank'] } });

    const error = await failureOf(provider().send(MESSAGE));

    expect(error.retryable).toBe(false);
    expect(error.details.errors).toEqual(['message cannot be blank']);
  });

  it('times out a Pushover that does not answer, as retryable, at the timeout', async () => {
    // The answer would come 5 s later (nock's own timer); the provider's deadline runs on the clock.
    const asked = nock(PUSHOVER).post('/1/messages.json').delay(5000).reply(200, { status: 1, request: 'late' });
    const clock = new ManualClock();
    const pushover = provider({ timeoutMs: 150, clock });
    let settled = false;
    const failure = failureOf(pushover.send(MESSAGE)).finally(() => (settled = true));
    await eventually(() => asked.isDone(), 'the message to reach Pushover');

    clock.advance(149);
    await drainEventLoop();
    expect(settled).toBe(false);
    clock.advance(1);
    const error = await failure;

    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/did not answer within 150 ms/);
    expect(pushover.status().lastError?.message).toBe(error.message);
  });

  it('times out a server that sends headers but never finishes the body', async () => {
    const server = await startLocalServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"status":');
    });
    try {
      const error = await failureOf(provider({ apiUrl: server.url, timeoutMs: 150 }).send(MESSAGE));

      expect(error.retryable).toBe(true);
    } finally {
      await server.close();
    }
  });

  it('rejects a refused connection as retryable', async () => {
    const server = await startLocalServer(() => undefined);
    await server.close();

    const error = await failureOf(provider({ apiUrl: server.url }).send(MESSAGE));

    expect(error.retryable).toBe(true);
    expect(error.message).toContain('ECONNREFUSED');
  });

  it('keeps the user key and API token out of error messages, errors and status', async () => {
    interceptMessage({ status: 400, body: { errors: [`token ${API_TOKEN} is invalid for user ${USER_KEY}`], status: 0 } });
    const pushover = provider();

    const error = await failureOf(pushover.send(MESSAGE));

    expectNoSecrets(error.message);
    expectNoSecrets(JSON.stringify(error.details));
    expectNoSecrets(JSON.stringify(pushover.status()));
    expect(error.details.errors).toEqual(['token [redacted] is invalid for user [redacted]']);
  });
});
