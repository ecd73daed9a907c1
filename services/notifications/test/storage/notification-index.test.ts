import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NotificationIndex, type IndexUndo } from '../../src/adapters/storage/notification-index.js';
import { readSince, UNREAD, type Delivery, type NotificationRecord } from '../../src/domain/notification.js';

const RECIPIENTS = ['alice', 'bob', 'carol'];

function record(n: number, recipient: string, time: number, read: boolean, status: NotificationRecord['delivery']['status']): NotificationRecord {
  return {
    id: `id-${n}`,
    recipient,
    title: `t${n}`,
    message: `message ${n} ✓`,
    priority: 0,
    ...(read ? readSince(new Date(time + 1).toISOString()) : UNREAD),
    createdAt: new Date(time).toISOString(),
    delivery: { status, attempts: 1 } as Delivery,
  };
}

/** The obvious model: records by id, ordered by (time, insertion number). */
class Model {
  readonly byId = new Map<string, { record: NotificationRecord; seq: number }>();
  private seq = 0;
  put(r: NotificationRecord): void {
    const prev = this.byId.get(r.id);
    this.byId.set(r.id, { record: r, seq: prev?.seq ?? this.seq++ });
  }
  del(id: string): void {
    this.byId.delete(id);
  }
  listIds(recipient: string, unreadOnly: boolean): string[] {
    return [...this.byId.values()]
      .filter((e) => e.record.recipient === recipient && (!unreadOnly || !e.record.read))
      .sort((a, b) => Date.parse(b.record.createdAt) - Date.parse(a.record.createdAt) || b.seq - a.seq)
      .map((e) => e.record.id);
  }
}

const op = fc.oneof(
  fc.record({ kind: fc.constant('put' as const), n: fc.nat(40), r: fc.nat(2), t: fc.nat(20), read: fc.boolean(), pending: fc.boolean() }),
  fc.record({ kind: fc.constant('del' as const), n: fc.nat(40) }),
  fc.record({ kind: fc.constant('undo' as const) }),
  fc.record({ kind: fc.constant('compact' as const) }),
);

describe('NotificationIndex (compact records)', () => {
  it('agrees with a plain model through puts, deletes, undos and compactions (property test)', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 120 }), (ops) => {
        const index = new NotificationIndex();
        const model = new Model();
        let lastUndo: { id: string; undo: IndexUndo | undefined; before: NotificationRecord | undefined; seqBefore?: number } | undefined;
        for (const o of ops) {
          if (o.kind === 'put') {
            const r = record(o.n, RECIPIENTS[o.r]!, Date.UTC(2026, 0, 1) + o.t * 1000, o.read, o.pending ? 'pending' : 'sent');
            const before = model.byId.get(r.id);
            lastUndo = { id: r.id, undo: index.put(r), before: before?.record, ...(before ? { seqBefore: before.seq } : {}) };
            model.put(r);
          } else if (o.kind === 'del') {
            const id = `id-${o.n}`;
            const before = model.byId.get(id);
            lastUndo = { id, undo: index.delete(id), before: before?.record, ...(before ? { seqBefore: before.seq } : {}) };
            model.del(id);
          } else if (o.kind === 'undo' && lastUndo) {
            index.restore(lastUndo.id, lastUndo.undo);
            if (lastUndo.before) model.byId.set(lastUndo.id, { record: lastUndo.before, seq: lastUndo.seqBefore! });
            else model.del(lastUndo.id);
            lastUndo = undefined;
          } else if (o.kind === 'compact') {
            index.compact();
            lastUndo = undefined;
          }
        }
        expect(index.size).toBe(model.byId.size);
        for (const [id, { record: r }] of model.byId) expect(index.get(id)).toEqual(r);
        for (const recipient of RECIPIENTS) {
          for (const unreadOnly of [false, true]) {
            const all = index.list(recipient, { limit: 1000, unreadOnly }).items.map((r) => r.id);
            expect(all).toEqual(model.listIds(recipient, unreadOnly));
            // Paging with cursors gives the same order.
            const paged: string[] = [];
            let before: string | undefined;
            for (;;) {
              const page = index.list(recipient, { limit: 3, unreadOnly, ...(before ? { before } : {}) });
              paged.push(...page.items.map((r) => r.id));
              if (page.nextCursor === null) break;
              before = page.nextCursor;
            }
            expect(paged).toEqual(all);
          }
        }
        expect(
          index
            .pending()
            .map((r) => r.id)
            .sort(),
        ).toEqual(
          [...model.byId.values()]
            .filter((e) => e.record.delivery.status === 'pending')
            .map((e) => e.record.id)
            .sort(),
        );
        const sequence = index.records();
        expect(Array.from({ length: sequence.length }, (_, i) => sequence.at(i)!.id).sort()).toEqual([...model.byId.keys()].sort());
      }),
      { numRuns: 300 },
    );
  });

  it('keeps serving a captured fold from the old arena after a compaction, and reclaims space', () => {
    const index = new NotificationIndex();
    for (let i = 0; i < 500; i++) index.put(record(i, 'alice', Date.UTC(2026, 0, 1) + i, false, 'sent'));
    const captured = index.records();
    for (let i = 0; i < 500; i++) index.put(record(i, 'alice', Date.UTC(2026, 0, 1) + i, true, 'sent'));
    for (let i = 0; i < 250; i++) index.delete(`id-${i}`);
    index.compact();
    expect(captured.length).toBe(500);
    expect(captured.at(10)).toMatchObject({ id: 'id-10', read: false });
    expect(index.size).toBe(250);
    expect(index.get('id-10')).toBeUndefined();
    expect(index.get('id-300')).toMatchObject({ read: true });
    expect(index.list('alice', { limit: 2 })).toMatchObject({ total: 250, unread: 0, items: [{ id: 'id-499' }, { id: 'id-498' }] });
  });

  // 20,000 records updated over and over: about a second alone, more while the other workers load both cores.
  it('keeps the arena within an eighth of the live size (or 8 MiB) plus a chunk or two under endless updates, a chunk at a time', { timeout: 30_000 }, () => {
    const index = new NotificationIndex();
    const n = 20_000;
    for (let i = 0; i < n; i++) index.put(record(i, RECIPIENTS[i % 3]!, Date.UTC(2026, 0, 1) + i, false, 'sent'));
    let worst = 0;
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < n; i++) {
        index.put(record(i, RECIPIENTS[i % 3]!, Date.UTC(2026, 0, 1) + i, round % 2 === 0, 'sent'));
        index.compactIfWorthwhile();
        const { live, allocated } = index.bytes;
        worst = Math.max(worst, allocated - live - Math.max(8 * 1024 * 1024, live / 8));
      }
    }
    expect(worst).toBeLessThanOrEqual(2 * 4 * 1024 * 1024);
    // The last round (19) marked everything unread again.
    expect(index.list('alice', { limit: 5 }).items.map((r) => r.read)).toEqual([false, false, false, false, false]);
    expect(index.size).toBe(n);
  });
});
