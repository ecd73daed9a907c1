import { describe, expect, it } from 'vitest';
import type { NotificationRepository } from '../../src/domain/notification-repository.js';
import { makeRecord } from './make-record.js';
import { recordPerVariant } from './record-variants.js';
import { endAlarm, readSince, UNREAD } from '../../src/domain/notification.js';

/** Behaviour every NotificationRepository shares; run against the YAML one and the in-memory fake. */
export function describeRepositoryContract(name: string, create: () => Promise<NotificationRepository>): void {
  describe(`${name} (repository contract)`, () => {
    it('returns an inserted record by id, as a copy the caller cannot corrupt', async () => {
      const repo = await create();
      const record = makeRecord();
      await repo.insert(record);
      record.title = 'changed by caller';
      const got = (await repo.get(record.id))!;
      got.delivery.attempts = 99;
      expect(await repo.get(record.id)).toMatchObject({ title: 'Door', delivery: { attempts: 1 } });
      expect(await repo.get('unknown')).toBeUndefined();
    });

    it('refuses a record it could not load back, and a duplicate id', async () => {
      const repo = await create();
      const record = makeRecord();
      await repo.insert(record);
      await expect(repo.insert({ ...makeRecord(), createdAt: 'yesterday' })).rejects.toThrow('createdAt must be a date');
      await expect(repo.insert({ ...record, title: 'again' })).rejects.toThrow(`Notification id ${record.id} already exists`);
      expect((await repo.stats()).records).toBe(1);
    });

    it('lists newest first with totals, unread counts and a stable cursor', async () => {
      const repo = await create();
      const records = Array.from({ length: 7 }, (_, i) => makeRecord(i % 3 === 0 ? readSince('2026-02-01T00:00:00.000Z') : UNREAD));
      for (const record of records) await repo.insert(record);
      await repo.insert(makeRecord({ recipient: 'bob' }));
      const first = await repo.list('alice', { limit: 3 });
      expect(first.items.map((r) => r.id)).toEqual([records[6]!.id, records[5]!.id, records[4]!.id]);
      expect(first).toMatchObject({ total: 7, unread: 4, nextCursor: records[4]!.id });
      await repo.remove(records[3]!.id);
      const second = await repo.list('alice', { limit: 3, before: first.nextCursor! });
      expect(second.items.map((r) => r.id)).toEqual([records[2]!.id, records[1]!.id, records[0]!.id]);
      expect(second.nextCursor).toBeNull();
      const unread = await repo.list('alice', { limit: 10, unreadOnly: true });
      expect(unread.items.map((r) => r.id)).toEqual([records[5]!.id, records[4]!.id, records[2]!.id, records[1]!.id]);
      await expect(repo.list('alice', { limit: 3, before: 'nope' })).rejects.toMatchObject({ code: 'NOTIFICATION_NOT_FOUND' });
    });

    it('orders by createdAt, then insertion, whatever the insertion order', async () => {
      const repo = await create();
      const at = '2026-06-01T00:00:00.000Z';
      const late = makeRecord({ createdAt: '2026-07-01T00:00:00.000Z' });
      const tieA = makeRecord({ createdAt: at });
      const tieB = makeRecord({ createdAt: at });
      const early = makeRecord({ createdAt: '2026-05-01T00:00:00.000Z' });
      for (const record of [late, tieA, tieB, early]) await repo.insert(record);
      expect((await repo.list('alice', { limit: 10 })).items.map((r) => r.id)).toEqual([late.id, tieB.id, tieA.id, early.id]);
    });

    it('updates read state and delivery, and unread counts follow', async () => {
      const repo = await create();
      const record = makeRecord();
      await repo.insert(record);
      const updated = await repo.update(record.id, { read: true, readAt: '2026-02-01T00:00:00.000Z' });
      expect(updated).toMatchObject({ id: record.id, read: true, readAt: '2026-02-01T00:00:00.000Z', title: 'Door' });
      expect((await repo.list('alice', { limit: 5 })).unread).toBe(0);
      await repo.update(record.id, { read: false, readAt: null, delivery: { status: 'pending', attempts: 2 } });
      expect((await repo.list('alice', { limit: 5, unreadOnly: true })).items).toHaveLength(1);
      expect((await repo.pending()).map((r) => r.id)).toEqual([record.id]);
      expect(await repo.update('unknown', readSince('2026-02-01T00:00:00.000Z'))).toBeUndefined();
    });

    it('gives back a record of every delivery status and alarm state as stored, before and after an update', async () => {
      const repo = await create();
      const records = recordPerVariant();
      for (const record of records) await repo.insert(record);
      for (const record of records) expect(await repo.get(record.id)).toEqual(record);
      const ringing = records.find((r) => r.emergency !== undefined)!;
      expect((await repo.ringing()).map((r) => r.id)).toEqual([ringing.id]);
      const readAt = '2026-12-01T00:00:00.000Z';
      for (const record of records) expect(await repo.update(record.id, { read: true, readAt })).toEqual({ ...record, read: true, readAt });
      for (const record of records) expect(await repo.get(record.id)).toEqual({ ...record, read: true, readAt });
    });

    it("keeps an emergency's alert identity through every kind of update: no patch sets or drops it", async () => {
      const repo = await create();
      const ringing = recordPerVariant().find((r) => r.alert !== undefined)!;
      await repo.insert(ringing);
      await repo.update(ringing.id, { emergency: endAlarm(ringing.emergency!, { cancelledAt: '2026-12-01T00:00:00.000Z' }) });
      await repo.update(ringing.id, { delivery: { status: 'sent', attempts: 2, receipt: 'x'.repeat(30) } });
      await repo.update(ringing.id, { read: true, readAt: '2026-12-01T00:00:01.000Z' });
      await repo.markAllRead(ringing.recipient, '2026-12-01T00:00:02.000Z');
      expect((await repo.get(ringing.id))!.alert).toEqual(ringing.alert);
    });

    it('claims an attempt only while pending with the expected count, once', async () => {
      const repo = await create();
      const record = makeRecord({ delivery: { status: 'pending', attempts: 0 } });
      await repo.insert(record);
      const attempt = { status: 'pending' as const, attempts: 1, lastAttemptAt: '2026-05-01T00:00:00.000Z' };
      expect(await repo.claimAttempt(record.id, attempt)).toMatchObject({ id: record.id, delivery: attempt });
      expect(await repo.claimAttempt(record.id, attempt)).toBeUndefined();
      await repo.update(record.id, { delivery: { status: 'sent', attempts: 1 } });
      expect(await repo.claimAttempt(record.id, { ...attempt, attempts: 2 })).toBeUndefined();
      expect(await repo.claimAttempt('unknown', attempt)).toBeUndefined();
      expect(await repo.pending()).toEqual([]);
    });

    it('marks all unread records of one recipient read', async () => {
      const repo = await create();
      for (let i = 0; i < 4; i++) await repo.insert(makeRecord(i === 0 ? readSince('2026-02-01T00:00:00.000Z') : UNREAD));
      await repo.insert(makeRecord({ recipient: 'bob' }));
      expect(await repo.markAllRead('alice', '2026-03-01T00:00:00.000Z')).toBe(3);
      expect(await repo.list('alice', { limit: 10 })).toMatchObject({ total: 4, unread: 0 });
      expect((await repo.list('bob', { limit: 10 })).unread).toBe(1);
      expect(await repo.markAllRead('alice', '2026-03-01T00:00:00.000Z')).toBe(0);
    });

    it('removes a record and resolves it, or undefined when unknown', async () => {
      const repo = await create();
      const record = makeRecord();
      await repo.insert(record);
      expect((await repo.remove(record.id))?.id).toBe(record.id);
      expect(await repo.get(record.id)).toBeUndefined();
      expect(await repo.remove(record.id)).toBeUndefined();
      expect(await repo.list('alice', { limit: 5 })).toMatchObject({ total: 0, unread: 0, items: [] });
    });

    it('prunes by age and by count per recipient', async () => {
      const repo = await create();
      const old = makeRecord({ createdAt: '2020-01-01T00:00:00.000Z' });
      await repo.insert(old);
      const recent = Array.from({ length: 5 }, () => makeRecord());
      for (const record of recent) await repo.insert(record);
      const bob = makeRecord({ recipient: 'bob', createdAt: '2020-01-02T00:00:00.000Z' });
      await repo.insert(bob);
      const removed = await repo.prune({ olderThan: new Date('2021-01-01T00:00:00.000Z'), maxPerRecipient: 3 });
      expect(removed.map((r) => r.id).sort()).toEqual([old.id, recent[0]!.id, recent[1]!.id, bob.id].sort());
      expect((await repo.list('alice', { limit: 10 })).items.map((r) => r.id)).toEqual([recent[4]!.id, recent[3]!.id, recent[2]!.id]);
      expect((await repo.stats()).records).toBe(3);
    });
  });
}
