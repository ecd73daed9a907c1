import { afterEach, describe, expect, it } from 'vitest';
import { eventually, sendRaw } from '@homeops/test-kit';
import { makeStorageDir, removeDir, startRealService, type RunningTestService } from '../hostile/running-service.js';
import { API_TOKEN, USER_KEY } from '../pushover/pushover-test-kit.js';
import { acceptedAnswer, startFakePushover, type FakeAnswer } from './fake-pushover.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Created {
  id: string;
  message: string;
  delivery: { status: string; attempts: number };
}

describe('notifications while Pushover is down, then back (fake Pushover on 127.0.0.1)', () => {
  it('ends every notification sent, each delivered exactly once', { timeout: 30_000 }, async () => {
    let down = true;
    const outage: FakeAnswer[] = [
      { status: 503, body: '<html>503 Service Unavailable</html>' },
      { status: 500, body: { status: 0, errors: ['internal error'] } },
      { status: 502, body: 'bad gateway' },
      'reset',
      'hang',
    ];
    let n = 0;
    const pushover = await startFakePushover(() => (down ? outage[n++ % outage.length]! : acceptedAnswer()));
    cleanups.push(() => pushover.close());
    const dir = await makeStorageDir('notifications-outage-');
    cleanups.push(() => removeDir(dir));
    const env = {
      PROVIDER_USER_KEY: USER_KEY,
      PROVIDER_API_TOKEN: API_TOKEN,
      PROVIDER_API_URL: pushover.url,
      PROVIDER_TIMEOUT_MS: '500',
      DELIVERY_RETRY_MIN_MS: '30',
      DELIVERY_RETRY_MAX_MS: '200',
      DELIVERY_MAX_ATTEMPTS: '1000',
    };
    let service: RunningTestService = await startRealService(dir, env);
    cleanups.push(() => service.stop());

    const messages = Array.from({ length: 12 }, (_, i) => `outage message ${i}`);
    const created = await Promise.all(
      messages.map(async (message) => {
        const res = await sendRaw(service.port, {
          method: 'POST',
          target: '/notifications',
          headers: [['Content-Type', 'application/json']],
          body: JSON.stringify({ recipient: 'ops', message }),
        });
        expect(res.status).toBe(201);
        return JSON.parse(res.body.toString('utf8')) as Created;
      }),
    );
    expect(created.every((c) => c.delivery.status === 'pending')).toBe(true);

    // Half-way through the outage the service restarts: pending deliveries must resume, not double.
    await eventually(() => n >= created.length + outage.length, 'every message tried and every kind of failure answered');
    await service.stop();
    const answeredBeforeRestart = n;
    service = await startRealService(dir, env);
    await eventually(() => n >= answeredBeforeRestart + outage.length, 'the restarted service to meet the outage too');
    down = false;

    const statusOf = async (id: string) =>
      (JSON.parse((await sendRaw(service.port, { method: 'GET', target: `/notifications/single/${id}` })).body.toString('utf8')) as Created).delivery;
    await eventually(async () => (await Promise.all(created.map((c) => statusOf(c.id)))).every((d) => d.status === 'sent'), {
      what: 'every notification sent',
      timeoutMs: 15_000,
    });
    const health = JSON.parse((await sendRaw(service.port, { method: 'GET', target: '/health' })).body.toString('utf8')) as {
      provider: { retriesScheduled: number };
    };
    expect(health.provider.retriesScheduled).toBe(0);
    // No retry is waiting, and a stop lets attempts under way finish: every send there will ever be has been made.
    await service.stop();
    expect(messages.map((m) => [m, pushover.deliveredCount(m)])).toEqual(messages.map((m) => [m, 1]));
    expect(new Set(pushover.exchanges.map((e) => (typeof e.answer === 'object' ? e.answer.status : e.answer)))).toEqual(
      new Set([503, 500, 502, 'reset', 'hang', 200]),
    );
  });
});
