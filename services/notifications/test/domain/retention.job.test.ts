import { ManualClock } from '@homeops/common';
import { describe, expect, it } from 'vitest';
import { eventually } from '@homeops/test-kit';
import { NotificationEvents, type NotificationEvent } from '../../src/domain/notification-events.js';
import type { NotificationRecord } from '../../src/domain/notification.js';
import { RetentionJob } from '../../src/domain/retention.job.js';
import { InMemoryAttachmentStore } from '../fakes/in-memory-attachment.store.js';
import { InMemoryNotificationRepository } from '../fakes/in-memory-notification.repository.js';
import { silentLogger } from '../support/test-app.js';

const NOW = new Date('2026-06-01T00:00:00.000Z');

function record(id: string, recipient: string, daysOld: number, withAttachment = false): NotificationRecord {
  return {
    id,
    recipient,
    title: '',
    message: id,
    priority: 0,
    read: false,
    readAt: null,
    createdAt: new Date(NOW.getTime() - daysOld * 86_400_000).toISOString(),
    delivery: { status: 'skipped', attempts: 0 },
    ...(withAttachment ? { attachment: { filename: 'a.png', contentType: 'image/png', size: 1 } } : {}),
  };
}

function setup(records: NotificationRecord[]) {
  const repository = new InMemoryNotificationRepository(records);
  const attachments = new InMemoryAttachmentStore();
  const events = new NotificationEvents();
  const ctx = { repository, attachments, events, clock: new ManualClock(NOW.getTime()), logger: silentLogger };
  return { ctx, repository, attachments, events };
}

describe('retention job', () => {
  it('removes records older than the maximum age with their attachments and announces the deletions', async () => {
    const { ctx, repository, attachments, events } = setup([record('old', 'ops', 40, true), record('new', 'ops', 5)]);
    await attachments.save('old', Buffer.from('x'));
    const seen: NotificationEvent[] = [];
    events.subscribe('ops', (e) => seen.push(e));
    const removed = await new RetentionJob(ctx, { maxAgeDays: 30 }, 60_000).runOnce();
    expect(removed).toBe(1);
    expect(await repository.get('old')).toBeUndefined();
    expect(await repository.get('new')).toBeDefined();
    expect(await attachments.read('old')).toBeUndefined();
    expect(seen).toEqual([{ type: 'deleted', recipient: 'ops', id: 'old' }]);
  });

  it('keeps only the newest records per recipient', async () => {
    const { ctx, repository } = setup([record('a1', 'a', 3), record('a2', 'a', 2), record('a3', 'a', 1), record('b1', 'b', 9)]);
    await new RetentionJob(ctx, { maxPerRecipient: 2 }, 60_000).runOnce();
    const kept = await Promise.all(['a1', 'a2', 'a3', 'b1'].map(async (id) => ((await repository.get(id)) ? id : undefined)));
    expect(kept.filter(Boolean)).toEqual(['a2', 'a3', 'b1']);
  });

  it('does nothing without limits, and runs in the background on start when limits are set', async () => {
    const { ctx, repository } = setup([record('old', 'ops', 400)]);
    const off = new RetentionJob(ctx, {}, 10);
    off.start();
    expect(off.enabled).toBe(false);
    expect(repository.calls).toEqual([]);
    const on = new RetentionJob(ctx, { maxAgeDays: 1 }, 10);
    on.start();
    await eventually(async () => (await repository.get('old')) === undefined);
    await on.stop();
  });

  it('logs a failed prune and keeps running', async () => {
    const { ctx, repository } = setup([record('old', 'ops', 400)]);
    repository.failWrites = true;
    const job = new RetentionJob(ctx, { maxAgeDays: 1 }, 60_000);
    expect(await job.runOnce()).toBe(0);
    repository.failWrites = false;
    expect(await job.runOnce()).toBe(1);
  });
});
