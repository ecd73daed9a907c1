import { ManualClock } from '@homeops/common';
import { drainEventLoop, eventually } from '@homeops/test-kit';
import { describe, expect, it } from 'vitest';
import { NotificationsMqttAdapter, UNREAD_INTERVAL_MS, type NotificationsBridge } from '../../src/adapters/mqtt/notifications-mqtt.adapter.js';
import { NotificationEvents } from '../../src/domain/notification-events.js';
import type { NotificationRecord } from '../../src/domain/notification.js';
import { parseCreateBody } from '../../src/build-mqtt.js';
import { InMemoryAttachmentStore } from '../fakes/in-memory-attachment.store.js';
import { InMemoryNotificationRepository } from '../fakes/in-memory-notification.repository.js';
import { silentLogger } from '../support/test-app.js';

// The unread sensor under a burst, on a ManualClock: a few reads, not one per change, and always the last count.
const NOW = Date.parse('2026-11-26T08:00:00.000Z');

function record(id: string): NotificationRecord {
  return {
    id,
    recipient: 'alice',
    title: 't',
    message: 'm',
    priority: 0,
    read: false,
    readAt: null,
    createdAt: new Date(NOW).toISOString(),
    delivery: { status: 'sent', attempts: 1 },
  } as NotificationRecord;
}

async function adapterOnFakes() {
  const repository = new InMemoryNotificationRepository();
  await repository.open();
  let reads = 0;
  const list = repository.list.bind(repository);
  repository.list = (...args) => {
    reads++;
    return list(...args);
  };
  const clock = new ManualClock(NOW);
  const events = new NotificationEvents();
  const published: string[] = [];
  const bridge: NotificationsBridge = {
    subscribe: () => () => {},
    setDevices: () => {},
    publishState: (topic, payload) => topic.endsWith('/unread') && published.push(payload),
    publishEvent: () => {},
    deviceId: (slug) => `test_${slug}`,
  };
  const ctx = { repository, attachments: new InMemoryAttachmentStore(), events, clock, logger: silentLogger };
  const adapter = new NotificationsMqttAdapter({
    bridge,
    baseTopic: 'homeops/notifications',
    ctx,
    create: {} as never,
    parseCreate: parseCreateBody,
    recipients: ['alice'],
    swVersion: 'test',
  });
  return { adapter, repository, events, clock, published, reads: () => reads };
}

describe('the unread sensor', () => {
  it('reads a burst of 100 changes a few times and ends on the true count', async () => {
    const { adapter, repository, events, clock, published, reads } = await adapterOnFakes();
    adapter.start();
    await eventually(() => published.length === 1);
    expect(published).toEqual(['0']);

    for (let i = 0; i < 100; i++) {
      const created = record(`n${i}`);
      await repository.insert(created);
      events.publish({ type: 'created', recipient: 'alice', notification: created });
    }
    await drainEventLoop();
    expect(published).toEqual(['0']);

    clock.advance(UNREAD_INTERVAL_MS);
    await eventually(() => published.at(-1) === '100');
    expect(reads()).toBe(2);
    adapter.stop();
  });

  it('publishes the first change after a quiet spell at once', async () => {
    const { adapter, repository, events, clock, published } = await adapterOnFakes();
    adapter.start();
    await eventually(() => published.length === 1);
    clock.advance(UNREAD_INTERVAL_MS);
    const created = record('n1');
    await repository.insert(created);
    events.publish({ type: 'created', recipient: 'alice', notification: created });
    await eventually(() => published.at(-1) === '1');
    adapter.stop();
  });
});
