import { ManualClock } from '@homeops/common';
import { describe, expect, it } from 'vitest';
import { LanLinks } from '../../src/adapters/meross/meross-lan-links.js';

const UUID = 'plug0000000000000000000000000001';

describe('LanLinks (the LAN side of each device)', () => {
  it('takes the LAN for an address a device told, and the cloud (or nothing) while none is known', () => {
    const links = new LanLinks(true, new Map(), new ManualClock());

    const before = [links.transport(UUID, true), links.transport(UUID, false)];
    const learnt = links.learn(UUID, '192.168.1.23');

    expect(before).toEqual(['cloud', 'unreachable']);
    expect(learnt).toBe(true);
    expect(links.transport(UUID, false)).toBe('lan');
    expect(links.describe(UUID, true, true)).toEqual({ transport: 'lan', address: '192.168.1.23', addressSource: 'learned', pushes: true, lanProblem: null });
  });

  it('lets a pinned address win over what the device tells, and keeps no pinned address for the next start', () => {
    const links = new LanLinks(true, new Map([[UUID, '10.0.0.5:8080']]), new ManualClock());

    const changed = links.learn(UUID, '192.168.1.23');

    expect(changed).toBe(false);
    expect(links.describe(UUID, true, true)).toMatchObject({ address: '10.0.0.5:8080', addressSource: 'config' });
    expect(links.learnedAddress(UUID)).toBeNull();
  });

  it('goes through the cloud after a failure, tries the LAN again after 30 s doubling, and at once when the cloud cannot help', () => {
    const clock = new ManualClock();
    const links = new LanLinks(true, new Map(), clock);
    links.learn(UUID, '192.168.1.23');

    links.failed(UUID, 'ECONNREFUSED');
    const justAfter = [links.transport(UUID, true), links.transport(UUID, false), links.transport(UUID, false, true)];
    clock.advance(30_000);
    const after30s = links.transport(UUID, true);
    links.failed(UUID, 'ECONNREFUSED');
    clock.advance(30_000);
    const after60sMore = links.transport(UUID, true);
    clock.advance(30_000);

    expect(justAfter).toEqual(['cloud', 'unreachable', 'lan']);
    expect(after30s).toBe('lan');
    expect(after60sMore).toBe('cloud');
    expect(links.transport(UUID, true)).toBe('lan');
    expect(links.describe(UUID, true, true).lanProblem).toMatch(/^no answer over the LAN since 2026-01-01T00:00:00\.000Z \(ECONNREFUSED\)$/);
  });

  it('answers again: the LAN is used at once', () => {
    const links = new LanLinks(true, new Map(), new ManualClock());
    links.learn(UUID, '192.168.1.23');
    links.failed(UUID, 'timeout');

    expect(links.answered(UUID)).toBe(true);
    expect(links.transport(UUID, true)).toBe('lan');
  });

  it('asks for one System.All per failing streak: a read that tells the same address settles it, a new address replaces it', () => {
    const links = new LanLinks(true, new Map(), new ManualClock());
    links.learn(UUID, '192.168.1.23');
    links.failed(UUID, 'timeout');

    const before = links.needsRelearn(UUID);
    links.learn(UUID, '192.168.1.23');
    const afterSame = links.needsRelearn(UUID);
    links.failed(UUID, 'timeout');
    const stillSettled = links.needsRelearn(UUID);
    const moved = links.learn(UUID, '192.168.1.77');

    expect([before, afterSame, stillSettled, moved]).toEqual([true, false, false, true]);
    expect(links.state(UUID)).toEqual({ kind: 'untried', address: '192.168.1.77', source: 'learned' });
  });

  it('never uses the LAN again for a device that refused the key (5001), and says why once', () => {
    const links = new LanLinks(true, new Map(), new ManualClock());
    links.learn(UUID, '192.168.1.23');

    const first = links.refuse(UUID, 'key');
    const again = links.refuse(UUID, 'key');

    expect([first, again]).toEqual([true, false]);
    expect(links.transport(UUID, true, true)).toBe('cloud');
    expect(links.answered(UUID)).toBe(false);
    expect(links.describe(UUID, true, true).lanProblem).toBe('the device refused the account key over the LAN (5001); it uses the cloud');
  });

  it('with MEROSS_LAN=off knows no address at all', () => {
    const links = new LanLinks(false, new Map([[UUID, '10.0.0.5']]), new ManualClock());

    links.learn(UUID, '192.168.1.23');

    expect(links.describe(UUID, true, true)).toEqual({ transport: 'cloud', address: null, addressSource: null, pushes: true, lanProblem: null });
  });
});
