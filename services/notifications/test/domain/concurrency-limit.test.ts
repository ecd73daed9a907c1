import { drainEventLoop } from '@homeops/test-kit';
import { describe, expect, it } from 'vitest';
import { ConcurrencyLimit } from '../../src/domain/concurrency-limit.js';

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('ConcurrencyLimit', () => {
  it('runs at most the limit at once and the rest in order, urgent ones first', async () => {
    const limit = new ConcurrencyLimit(1);
    const order: string[] = [];
    const first = gate();
    const running = limit.run(async () => {
      order.push('first');
      await first.opened;
    });
    const tasks = [
      limit.run(async () => void order.push('retry-1')),
      limit.run(async () => void order.push('retry-2')),
      limit.run(async () => void order.push('urgent-1'), true),
      limit.run(async () => void order.push('urgent-2'), true),
    ];
    // Whatever could run without the first task's slot has run by now.
    await drainEventLoop();
    expect(order).toEqual(['first']);
    first.open();
    await Promise.all([running, ...tasks]);
    expect(order).toEqual(['first', 'urgent-1', 'urgent-2', 'retry-1', 'retry-2']);
  });

  it('frees the slot when a task fails', async () => {
    const limit = new ConcurrencyLimit(1);
    await expect(limit.run(async () => Promise.reject(new Error('x')))).rejects.toThrow('x');
    expect(await limit.run(async () => 'ran')).toBe('ran');
  });

  it('grants a slot at once while one is free and queues the next holder until a release', async () => {
    const limit = new ConcurrencyLimit(2);
    const first = await limit.acquire();
    await limit.acquire();
    let third = false;
    const waiting = limit.acquire().then((release) => {
      third = true;
      return release;
    });
    await Promise.resolve();
    expect(third).toBe(false);
    first();
    await waiting;
    expect(third).toBe(true);
  });

  it('releases a slot only once however often its release is called', async () => {
    const limit = new ConcurrencyLimit(1);
    const release = await limit.acquire();
    const second = limit.acquire();
    release();
    release();
    await second;
    let third = false;
    void limit.acquire().then(() => (third = true));
    await Promise.resolve();
    await Promise.resolve();
    expect(third).toBe(false);
  });

  it('rejects with the signal reason when the signal aborts first, and leaves the queue to the others', async () => {
    const limit = new ConcurrencyLimit(1);
    const release = await limit.acquire();
    const controller = new AbortController();
    const aborted = limit.acquire({ signal: controller.signal, urgent: true });
    const next = limit.acquire();
    controller.abort(new Error('gave up'));
    await expect(aborted).rejects.toThrow('gave up');
    release();
    const nextRelease = await next;
    nextRelease();
    expect(await limit.run(async () => 'ran')).toBe('ran');
  });

  it('rejects at once when the signal has already aborted', async () => {
    const limit = new ConcurrencyLimit(1);
    await expect(limit.acquire({ signal: AbortSignal.abort(new Error('late')) })).rejects.toThrow('late');
    expect(await limit.run(async () => 'ran')).toBe('ran');
  });
});
