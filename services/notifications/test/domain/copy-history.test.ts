import { describe, expect, it } from 'vitest';
import { copyHistory } from '../../src/domain/copy-history.js';
import { InMemoryNotificationRepository } from '../fakes/in-memory-notification.repository.js';
import { makeRecord } from '../storage/make-record.js';
import { readSince, UNREAD } from '../../src/domain/notification.js';

async function history(records = 0): Promise<InMemoryNotificationRepository> {
  const repo = new InMemoryNotificationRepository();
  await repo.open();
  for (let i = 0; i < records; i += 1)
    await repo.insert(makeRecord({ recipient: `r${i % 3}`, ...(i % 4 === 0 ? readSince('2026-01-02T00:00:00.000Z') : UNREAD) }));
  return repo;
}

describe('copyHistory', () => {
  it('copies every record of every recipient, pages of 500 at a time, keeping order, read state and counts', async () => {
    const from = await history(1_234);
    const to = await history();

    const report = await copyHistory(from, to);

    expect(report).toEqual({ copied: 1_234, skipped: 0, recipients: 3 });
    expect(await to.recipients()).toEqual(await from.recipients());
    for (const { recipient } of await from.recipients()) {
      const [a, b] = await Promise.all([from.list(recipient, { limit: 1_000 }), to.list(recipient, { limit: 1_000 })]);
      expect(b.items).toEqual(a.items);
    }
  });

  it('skips what the target holds already, so an interrupted copy can run again', async () => {
    const from = await history(40);
    const to = await history();
    const [first] = (await from.list('r1', { limit: 1 })).items;
    await to.insert(first!);

    const report = await copyHistory(from, to);
    const again = await copyHistory(from, to);

    expect(report).toEqual({ copied: 39, skipped: 1, recipients: 3 });
    expect(again).toEqual({ copied: 0, skipped: 40, recipients: 3 });
  });
});
