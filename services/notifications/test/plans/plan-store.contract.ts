import { afterEach, describe, expect, it } from 'vitest';
import type { Heartbeat, PlanStore, ScheduledSend } from '../../src/domain/plans/plan.js';

/** One store on fresh, empty storage, and how to open another on the same storage (a restart). */
export interface PlanStoreUnderTest {
  store: PlanStore;
  reopen(): Promise<PlanStore>;
}

/** How the contract opens a store; `durable`: it keeps plans past a restart (every store but the in-memory one). */
export interface PlanStoreSubject {
  open(): Promise<PlanStoreUnderTest>;
  durable: boolean;
}

const T0 = Date.parse('2026-11-26T08:00:00Z');

function aSend(key: string, overrides: Partial<ScheduledSend> = {}): ScheduledSend {
  return {
    kind: 'send',
    key,
    sendAt: T0 + 60_000,
    notification: { recipient: 'ops', title: 'Reminder', message: `send ${key} – ünïcode ✓`, priority: 0 },
    createdAt: T0,
    ...overrides,
  };
}

function aHeartbeat(key: string, overrides: Partial<Heartbeat> = {}): Heartbeat {
  return {
    kind: 'heartbeat',
    key,
    intervalMs: 3_600_000,
    graceMs: 600_000,
    notification: { recipient: 'ops', title: 'Backup', message: 'The nightly backup did not report', priority: 2 },
    recoveredNote: true,
    lastPingAt: T0,
    status: { state: 'down', missedAt: T0 + 4_200_000, sent: false, attemptAfter: T0 + 4_320_000 },
    createdAt: T0,
    ...overrides,
  };
}

/**
 * The PlanStore contract every store keeps (in memory, the JSON file, PostgreSQL): what the planner relies on to act
 * once, whichever instance claims a plan first.
 */
export function describePlanStoreContract(name: string, subject: PlanStoreSubject): void {
  describe(`${name} (PlanStore contract)`, () => {
    const opened: PlanStore[] = [];
    afterEach(async () => {
      for (const store of opened.splice(0).reverse()) await store.close();
    });
    const fresh = async (): Promise<PlanStoreUnderTest> => {
      const opening = await subject.open();
      opened.push(opening.store);
      return opening;
    };

    it('stores a plan as version 1 and gives it back from get and list as stored', async () => {
      const { store } = await fresh();
      const send = aSend('reminder');
      const heartbeat = aHeartbeat('nightly-backup');

      const stored = await store.put(send);
      await store.put(heartbeat);

      expect(stored).toEqual({ ...send, version: 1 });
      expect(await store.get('send', 'reminder')).toEqual({ ...send, version: 1 });
      expect(await store.get('heartbeat', 'nightly-backup')).toEqual({ ...heartbeat, version: 1 });
      const listed = await store.list();
      expect(listed.sort((a, b) => a.kind.localeCompare(b.kind))).toEqual([
        { ...heartbeat, version: 1 },
        { ...send, version: 1 },
      ]);
    });

    it('answers undefined and an empty list for plans never stored', async () => {
      const { store } = await fresh();
      expect(await store.get('send', 'nothing')).toBeUndefined();
      expect(await store.list()).toEqual([]);
    });

    it('moves the version on with each put of the same kind and key, and keeps one plan', async () => {
      const { store } = await fresh();
      await store.put(aSend('reminder'));
      await store.put(aSend('reminder', { sendAt: T0 + 120_000 }));

      const third = await store.put(aSend('reminder', { sendAt: T0 + 180_000 }));

      expect(third).toMatchObject({ version: 3, sendAt: T0 + 180_000 });
      expect(await store.list()).toEqual([third]);
    });

    it('counts versions per kind and key: a send and a heartbeat may share a key', async () => {
      const { store } = await fresh();
      await store.put(aSend('same'));
      await store.put(aSend('same'));

      const heartbeat = await store.put(aHeartbeat('same'));

      expect(heartbeat.version).toBe(1);
      expect(await store.get('send', 'same')).toMatchObject({ kind: 'send', version: 2 });
      expect(await store.list()).toHaveLength(2);
    });

    it('ignores a version carried by the plan put: the store numbers versions itself', async () => {
      const { store } = await fresh();
      await store.put(aSend('reminder'));

      const stored = await store.put({ ...aSend('reminder'), version: 41 } as ScheduledSend);

      expect(stored.version).toBe(2);
      expect(await store.get('send', 'reminder')).toMatchObject({ version: 2 });
    });

    it('swaps the version read exactly once: the change is stored as the next version, a second swap of it fails', async () => {
      const { store } = await fresh();
      const { version } = await store.put(aSend('reminder'));
      const claimed = aSend('reminder', { attemptAfter: T0 + 180_000 });

      const first = await store.swap('send', 'reminder', version, claimed);
      const second = await store.swap('send', 'reminder', version, aSend('reminder', { attemptAfter: T0 + 999_000 }));

      expect([first, second]).toEqual([true, false]);
      expect(await store.get('send', 'reminder')).toEqual({ ...claimed, version: version + 1 });
    });

    it('refuses a swap on a stale version after a put came first, and leaves the newer plan alone', async () => {
      const { store } = await fresh();
      const read = await store.put(aHeartbeat('cron'));
      const changed = await store.put(aHeartbeat('cron', { intervalMs: 60_000 }));

      const swapped = await store.swap('heartbeat', 'cron', read.version, aHeartbeat('cron', { status: { state: 'up' } }));

      expect(swapped).toBe(false);
      expect(await store.get('heartbeat', 'cron')).toEqual(changed);
    });

    it('removes a plan with a swap to undefined on its version, and only on its version', async () => {
      const { store } = await fresh();
      const { version } = await store.put(aSend('reminder'));

      const stale = await store.swap('send', 'reminder', version + 1, undefined);
      const kept = await store.get('send', 'reminder');
      const dropped = await store.swap('send', 'reminder', version, undefined);

      expect([stale, dropped]).toEqual([false, true]);
      expect(kept).toMatchObject({ version });
      expect(await store.get('send', 'reminder')).toBeUndefined();
      expect(await store.list()).toEqual([]);
    });

    it('refuses a swap of a plan that is not there', async () => {
      const { store } = await fresh();
      expect(await store.swap('send', 'ghost', 1, aSend('ghost'))).toBe(false);
      expect(await store.swap('send', 'ghost', 1, undefined)).toBe(false);
      expect(await store.get('send', 'ghost')).toBeUndefined();
    });

    it('stores a plan with a swap on version 0 only where there is none: once, as version 1', async () => {
      const { store } = await fresh();
      const first = await store.swap('send', 'reminder', 0, aSend('reminder'));
      const second = await store.swap('send', 'reminder', 0, aSend('reminder', { sendAt: T0 + 999_000 }));
      const removeNothing = await store.swap('heartbeat', 'reminder', 0, undefined);

      expect([first, second, removeNothing]).toEqual([true, false, false]);
      expect(await store.get('send', 'reminder')).toEqual({ ...aSend('reminder'), version: 1 });
      expect(await store.count()).toBe(1);
    });

    it('removes a plan whatever its version, true once and false after, leaving the other kind alone', async () => {
      const { store } = await fresh();
      await store.put(aSend('same'));
      await store.put(aSend('same'));
      const heartbeat = await store.put(aHeartbeat('same'));

      const removed = [await store.remove('send', 'same'), await store.remove('send', 'same')];

      expect(removed).toEqual([true, false]);
      expect(await store.get('send', 'same')).toBeUndefined();
      expect(await store.list()).toEqual([heartbeat]);
    });

    it('counts each kind and key kept once, 0 when empty, and one fewer after a remove or a swap to undefined', async () => {
      const { store } = await fresh();
      const empty = await store.count();
      await store.put(aSend('same'));
      await store.put(aSend('same'));
      await store.put(aHeartbeat('same'));
      const { version } = await store.put(aSend('other'));
      const kept = await store.count();

      await store.remove('heartbeat', 'same');
      await store.swap('send', 'other', version, undefined);

      expect([empty, kept, await store.count()]).toEqual([0, 3, 1]);
    });

    it("counts the plans of one recipient, of both kinds, and none of another's", async () => {
      const { store } = await fresh();
      await store.put(aSend('a'));
      await store.put(aHeartbeat('b'));
      await store.put(aSend('c', { notification: { recipient: 'alice', title: '', message: 'm', priority: 0 } }));

      expect([await store.countFor('ops'), await store.countFor('alice'), await store.countFor('nobody')]).toEqual([2, 1, 0]);
    });

    it('starts a removed plan again at version 1', async () => {
      const { store } = await fresh();
      await store.put(aSend('reminder'));
      await store.put(aSend('reminder'));
      await store.remove('send', 'reminder');

      expect((await store.put(aSend('reminder'))).version).toBe(1);
    });

    // The in-memory store keeps nothing past its process by design: there is no restart to check.
    if (!subject.durable) return;

    it('keeps what a call acknowledged for the next store opened on the same storage (a restart)', async () => {
      const { store, reopen } = await fresh();
      const send = await store.put(aSend('reminder'));
      await store.swap('send', 'reminder', send.version, aSend('reminder', { attemptAfter: T0 + 180_000 }));
      await store.put(aSend('dropped'));
      await store.remove('send', 'dropped');
      const heartbeat = await store.put(aHeartbeat('cron'));
      await store.close();

      const again = await reopen();
      opened.push(again);

      expect(await again.get('send', 'reminder')).toEqual({ ...aSend('reminder', { attemptAfter: T0 + 180_000 }), version: 2 });
      expect(await again.get('heartbeat', 'cron')).toEqual(heartbeat);
      expect(await again.get('send', 'dropped')).toBeUndefined();
      expect(await again.count()).toBe(2);
      expect(await again.swap('send', 'reminder', 2, undefined)).toBe(true);
    });
  });
}
