import { createLogger, systemClock } from '@homeops/common';
import { describe, expect, it } from 'vitest';
import type { AttachmentStore } from '../../src/domain/attachment-store.js';
import { sweepOrphanAttachments } from '../../src/domain/attachment-sweep.job.js';
import { NotificationEvents } from '../../src/domain/notification-events.js';
import { newNotificationId } from '../../src/domain/notification-id.js';
import { InMemoryAttachmentStore } from '../fakes/in-memory-attachment.store.js';
import { InMemoryNotificationRepository } from '../fakes/in-memory-notification.repository.js';
import { makeRecord } from '../storage/make-record.js';

function capturingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({ service: 'test', level: 'debug', destination: { write: (line: string) => void lines.push(JSON.parse(line)) } });
  return { logger, lines };
}

/** The in-memory store's methods with another sweep, or none. */
function storeWithSweep(sweep: AttachmentStore['sweep']): AttachmentStore {
  const store = new InMemoryAttachmentStore();
  return { save: store.save.bind(store), read: store.read.bind(store), remove: store.remove.bind(store), ...(sweep ? { sweep } : {}) };
}

function setup(attachments: AttachmentStore = new InMemoryAttachmentStore()) {
  const stored = makeRecord({ id: newNotificationId(new Date()) });
  const repository = new InMemoryNotificationRepository([stored]);
  const { logger, lines } = capturingLogger();
  const ctx = { repository, attachments, events: new NotificationEvents(), clock: systemClock, logger };
  return { ctx, stored, lines };
}

describe('sweepOrphanAttachments', () => {
  it('deletes the files of ids without a record, keeps the stored ones, and logs one line with the count', async () => {
    const attachments = new InMemoryAttachmentStore();
    const { ctx, stored, lines } = setup(attachments);
    const orphan = newNotificationId(new Date());
    await attachments.save(stored.id, Buffer.from('kept'));
    await attachments.save(orphan, Buffer.from('secret bytes'));
    await sweepOrphanAttachments(ctx);
    expect([...attachments.files.keys()]).toEqual([stored.id]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 30, removed: 1, msg: 'attachment sweep: removed 1 orphaned files' });
    expect(JSON.stringify(lines)).not.toContain('secret bytes');
  });

  it('leaves files whose name is not a notification id, record or not, and says nothing when nothing was removed', async () => {
    const attachments = new InMemoryAttachmentStore();
    const { ctx, lines } = setup(attachments);
    for (const name of ['README', 'backup_1', newNotificationId(new Date()).toLowerCase()]) await attachments.save(name, Buffer.from('x'));
    await sweepOrphanAttachments(ctx);
    expect(attachments.files.size).toBe(3);
    expect(lines).toEqual([]);
  });

  it('warns with the counts when some files could not be deleted', async () => {
    const { ctx, lines } = setup(storeWithSweep(async () => ({ removed: 2, failed: 1 })));
    await sweepOrphanAttachments(ctx);
    expect(lines).toEqual([expect.objectContaining({ level: 40, removed: 2, failed: 1 })]);
  });

  it('warns and resolves when the sweep fails, so the service still starts', async () => {
    const { ctx, lines } = setup(storeWithSweep(() => Promise.reject(new Error('EIO'))));
    await expect(sweepOrphanAttachments(ctx)).resolves.toBeUndefined();
    expect(lines).toEqual([expect.objectContaining({ level: 40, msg: expect.stringMatching(/sweep failed/) })]);
  });

  it('does nothing for a store without a sweep', async () => {
    const { ctx, lines } = setup(storeWithSweep(undefined));
    await expect(sweepOrphanAttachments(ctx)).resolves.toBeUndefined();
    expect(lines).toEqual([]);
  });
});
