import { describe, expect, it } from 'vitest';
import { Resources } from '../src/index.js';

describe('Resources', () => {
  it('closes last opened first, each once, however often closeAll is called', async () => {
    const resources = new Resources();
    const closed: string[] = [];
    resources.add('history', () => void closed.push('history'));
    resources.add('tokens', async () => void closed.push('tokens'));
    resources.add('server', () => void closed.push('server'));

    await Promise.all([resources.closeAll(), resources.closeAll()]);
    await resources.closeAll();

    expect(closed).toEqual(['server', 'tokens', 'history']);
  });

  it('closes the others when one cleanup fails, then throws the first failure naming its resource', async () => {
    const resources = new Resources();
    const closed: string[] = [];
    resources.add('history', () => void closed.push('history'));
    resources.add('plans', () => Promise.reject(new Error('disk gone')));
    resources.add('mqtt', () => {
      throw new Error('broker gone');
    });

    await expect(resources.closeAll()).rejects.toThrow('closing mqtt failed: broker gone');
    expect(closed).toEqual(['history']);
  });

  it('refuses a cleanup registered once closing began', async () => {
    const resources = new Resources();
    await resources.closeAll();
    expect(() => resources.add('late', () => undefined)).toThrow(/already closing/);
  });

  it('openAll closes what a failed start had opened and throws the start error, not a cleanup error', async () => {
    const resources = new Resources();
    const closed: string[] = [];
    const closeErrors: unknown[] = [];
    const start = resources.openAll(
      async () => {
        resources.add('tokens', () => void closed.push('tokens'));
        resources.add('history', () => Promise.reject(new Error('flush failed')));
        throw new Error('listen EADDRINUSE');
      },
      (err) => closeErrors.push(err),
    );

    await expect(start).rejects.toThrow('listen EADDRINUSE');
    expect(closed).toEqual(['tokens']);
    expect(closeErrors).toEqual([new Error('closing history failed: flush failed')]);
  });

  it('openAll closes nothing when the start succeeds', async () => {
    const resources = new Resources();
    const closed: string[] = [];
    const value = await resources.openAll(async () => {
      resources.add('tokens', () => void closed.push('tokens'));
      return 42;
    });
    expect([value, closed, resources.names]).toEqual([42, [], ['tokens']]);
  });
});
