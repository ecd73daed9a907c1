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
    await new Promise((r) => setTimeout(r, 10));
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
});
