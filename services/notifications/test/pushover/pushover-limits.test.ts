import { ManualClock } from '@homeops/common';
import { eventually } from '@homeops/test-kit';
import nock from 'nock';
import { afterEach, describe, expect, it } from 'vitest';
import { PushoverProvider } from '../../src/adapters/pushover/pushover.provider.js';
import { DeliveryError, type PushMessage } from '../../src/domain/push-provider.js';
import { API_TOKEN, USER_KEY, accepted, interceptMessage, startLocalServer } from './pushover-test-kit.js';

const MESSAGE: PushMessage = { title: 'Door', message: 'Front door opened', priority: 0 };

describe('PushoverProvider limits and diagnostics', () => {
  afterEach(() => nock.cleanAll());

  it('keeps at most 2 requests open at once and still delivers every message', async () => {
    let open = 0;
    let mostOpen = 0;
    let served = 0;
    const server = await startLocalServer((req, res) => {
      open += 1;
      mostOpen = Math.max(mostOpen, open);
      req.resume();
      setTimeout(() => {
        open -= 1;
        served += 1;
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 1, request: `r${served}` }));
      }, 40);
    });
    try {
      const pushover = new PushoverProvider({ userKey: USER_KEY, apiToken: API_TOKEN, apiUrl: server.url, timeoutMs: 5000 });

      const receipts = await Promise.all(Array.from({ length: 7 }, () => pushover.send(MESSAGE)));

      expect(mostOpen).toBe(2);
      expect(served).toBe(7);
      expect(new Set(receipts.map((r) => r.request)).size).toBe(7);
    } finally {
      await server.close();
    }
  });

  it('fails a send that waited for a free connection past the timeout, without ever sending it', async () => {
    let requests = 0;
    const server = await startLocalServer((req) => {
      requests += 1;
      req.resume(); // never answers: both connections stay busy
    });
    try {
      const clock = new ManualClock();
      const pushover = new PushoverProvider({ userKey: USER_KEY, apiToken: API_TOKEN, apiUrl: server.url, timeoutMs: 200, clock });

      const sends = Promise.allSettled([pushover.send(MESSAGE), pushover.send(MESSAGE), pushover.send(MESSAGE)]);
      await eventually(() => requests === 2, 'two requests on the wire, the third queued');
      clock.advance(200);
      const results = await sends;

      const errors = results.map((r) => (r.status === 'rejected' ? (r.reason as DeliveryError) : undefined));
      expect(errors.every((e) => e instanceof DeliveryError && e.retryable)).toBe(true);
      expect(errors[2]?.message).toMatch(/No free connection to Pushover within 200 ms; the message was not sent/);
      expect(requests).toBe(2);
    } finally {
      await server.close();
    }
  });

  it('reads the quota from the X-Limit-App-* headers of a successful send', async () => {
    interceptMessage({
      ...accepted(),
      headers: { 'X-Limit-App-Limit': '10000', 'X-Limit-App-Remaining': '7496', 'X-Limit-App-Reset': '1393653600' },
    });
    const pushover = new PushoverProvider({ userKey: USER_KEY, apiToken: API_TOKEN });
    expect(pushover.status().quota).toBeNull();

    await pushover.send(MESSAGE);

    expect(pushover.status()).toMatchObject({
      enabled: true,
      lastError: null,
      quota: { limit: 10000, remaining: 7496, resetAt: new Date(1393653600 * 1000).toISOString() },
    });
  });

  it('keeps the last known quota when a response carries no quota headers', async () => {
    interceptMessage({ ...accepted(), headers: { 'X-Limit-App-Limit': '10000', 'X-Limit-App-Remaining': '10', 'X-Limit-App-Reset': '1393653600' } });
    interceptMessage(accepted());
    const pushover = new PushoverProvider({ userKey: USER_KEY, apiToken: API_TOKEN });

    await pushover.send(MESSAGE);
    await pushover.send(MESSAGE);

    expect(pushover.status().quota?.remaining).toBe(10);
  });

  it('refuses an API URL that is not http(s) at construction', () => {
    expect(() => new PushoverProvider({ userKey: USER_KEY, apiToken: API_TOKEN, apiUrl: 'ftp://api.pushover.net' })).toThrow(/http\(s\)/);
  });
});
