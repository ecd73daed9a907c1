import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ManualClock } from '@homeops/common';
import { drainEventLoop, eventually } from '@homeops/test-kit';
import request from 'supertest';
import { describe, expect, it, vi } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { FakePushProvider } from '../fakes/fake-push.provider.js';
import { InMemoryAttachmentStore } from '../fakes/in-memory-attachment.store.js';
import { InMemoryNotificationRepository } from '../fakes/in-memory-notification.repository.js';
import { composeTestService } from '../support/test-app.js';

const fixture = (name: string) => JSON.parse(readFileSync(join(import.meta.dirname, '../fixtures/hooks', `${name}.json`), 'utf8')) as object;

describe('composeNotifications', () => {
  it('builds the domain once: a webhook and a missed heartbeat go through the one AlertHooks it returns', async () => {
    const clock = new ManualClock();
    const service = await composeTestService(parseConfig({}), {
      repository: new InMemoryNotificationRepository(),
      attachments: new InMemoryAttachmentStore(),
      provider: new FakePushProvider(),
      clock,
    });
    const receive = vi.spyOn(service.domain.alerts, 'receive');
    await service.start();

    await request(service.app).post('/hooks/alertmanager?recipient=ops').send(fixture('alertmanager-firing')).expect(201);
    await request(service.app)
      .put('/heartbeats/cron')
      .send({ intervalSeconds: 60, notification: { recipient: 'ops', message: 'cron stopped' } })
      .expect(200);
    for (let second = 0; second < 90; second++) {
      clock.advance(1_000);
      await drainEventLoop();
      await service.domain.planner.settled();
    }
    await eventually(() => receive.mock.calls.some(([source]) => source === 'heartbeat'), 'the missed heartbeat at the alerts');

    expect(receive.mock.calls.map(([source, , { sender }]) => [source, sender.id])).toEqual([
      ['alertmanager', 'open'],
      ['heartbeat', 'heartbeat'],
    ]);
  });
});
