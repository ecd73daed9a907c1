import { describe, expect, it } from 'vitest';
import { GroupWriter } from '../../src/adapters/storage/postgres/group-writer.js';

/** A write that waits until released, recording each batch it was given. */
function gatedWrite(fail?: (items: number[]) => Error | undefined) {
  const batches: number[][] = [];
  const gates: Array<() => void> = [];
  const write = (items: number[]) => {
    batches.push(items);
    return new Promise<void>((resolve, reject) =>
      gates.push(() => {
        const error = fail?.(items);
        if (error) reject(error);
        else resolve();
      }),
    );
  };
  const releaseAll = async () => {
    while (gates.length > 0) {
      gates.shift()!();
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  return { write, batches, releaseAll };
}

describe('GroupWriter', () => {
  it('writes a lone item at once and groups what arrives while a batch is in flight', async () => {
    const { write, batches, releaseAll } = gatedWrite();
    const writer = new GroupWriter(write, { maxInFlight: 1, maxBatch: 100 });

    const done = [1, 2, 3, 4].map((n) => writer.add(n));
    await releaseAll();
    await Promise.all(done);

    expect(batches).toEqual([[1], [2, 3, 4]]);
  });

  it('keeps at most maxInFlight batches of at most maxBatch items', async () => {
    const { write, batches, releaseAll } = gatedWrite();
    const writer = new GroupWriter(write, { maxInFlight: 2, maxBatch: 2 });

    const done = [1, 2, 3, 4, 5, 6, 7].map((n) => writer.add(n));
    expect(batches).toEqual([[1], [2]]);
    await releaseAll();
    await Promise.all(done);

    expect(batches.slice(2)).toEqual([[3, 4], [5, 6], [7]]);
  });

  it('rejects every caller of a failed batch', async () => {
    const { write, releaseAll } = gatedWrite(() => new Error('database down'));
    const writer = new GroupWriter(write, { maxInFlight: 1, maxBatch: 10 });

    const results = [1, 2, 3].map((n) =>
      writer.add(n).then(
        () => 'ok',
        (err: Error) => err.message,
      ),
    );
    await releaseAll();

    expect(await Promise.all(results)).toEqual(['database down', 'database down', 'database down']);
  });

  it('writes each item of a batch alone after a failure marked retryAlone, so only the bad one fails', async () => {
    const duplicate = Object.assign(new Error('duplicate key'), { code: '23505' });
    const { write, batches, releaseAll } = gatedWrite((items) => (items.includes(3) ? duplicate : undefined));
    const writer = new GroupWriter(write, { maxInFlight: 1, maxBatch: 10, retryAlone: (err) => err === duplicate });

    const results = [1, 2, 3, 4].map((n) =>
      writer.add(n).then(
        () => 'ok',
        (err: Error) => err.message,
      ),
    );
    await releaseAll();

    expect(await Promise.all(results)).toEqual(['ok', 'ok', 'duplicate key', 'ok']);
    expect(batches).toEqual([[1], [2, 3, 4], [2], [3], [4]]);
  });
});
