import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '@homeops/test-kit';
import { parseRecipientsVariable } from '../../src/adapters/pushover/recipient-map.js';
import { PgEventRelay } from '../../src/adapters/storage/postgres/pg-event-relay.js';
import { PgNotificationRepository } from '../../src/adapters/storage/postgres/pg-notification.repository.js';
import type { NotificationRecord } from '../../src/domain/notification.js';
import { freshDatabase } from '../support/postgres-database.js';
import { startFakePushoverApi } from './fake-pushover-api.js';
import { startHouseholdApp } from './household-kit.js';
import { API_TOKEN, USER_KEY } from './pushover-test-kit.js';

const ALICE = 'aLiCe0000000000000000000000001';
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** One service instance on the shared database, with its events relayed like the service wires them. */
async function instance(url: string, fakeUrl: string, name: string) {
  const repository = new PgNotificationRepository({ url, poolMax: 3, connectTimeoutMs: 5_000, queryTimeoutMs: 10_000, leaseMs: 30_000, instanceId: name });
  await repository.open();
  closers.push(() => repository.close());
  const recipients = { recipients: parseRecipientsVariable(`alice=${ALICE}`), unmapped: 'default' as const };
  // Polls far apart: whatever ends an alarm within the test comes from an event, not from a receipt check.
  const app = await startHouseholdApp(fakeUrl, { userKey: USER_KEY, recipients }, { config: { EMERGENCY_POLL_SECONDS: 60 }, repository });
  const relay = new PgEventRelay(repository.pool, url, repository, repository.instanceId);
  closers.push(() => relay.stop());
  await app.ctx.events.connect(relay);
  return app;
}

describe('emergencies with two instances on one PostgreSQL', () => {
  it('cancels an alarm sent by one instance when it is read, read-all or deleted through the other, once each', async () => {
    const fake = await startFakePushoverApi({ token: API_TOKEN, users: { [USER_KEY]: [], [ALICE]: ['iphone'] } });
    closers.push(fake.close);
    const url = await freshDatabase();
    const a = await instance(url, fake.url, 'a');
    const b = await instance(url, fake.url, 'b');
    const alarm = { recipient: 'alice', title: 'Smoke', message: 'Smoke in the kitchen', priority: 2 };
    const [read, readAll, deleted] = await Promise.all(
      [1, 2, 3].map(async () => (await request(a.app).post('/notifications').send(alarm).expect(201)).body as NotificationRecord),
    );

    await request(b.app).patch(`/notifications/${read!.id}/read`).expect(200);
    await eventually(() => fake.alarm(read!.delivery.receipt!)?.cancelled === true, { timeoutMs: 5_000 });
    await request(b.app).delete(`/notifications/${deleted!.id}`).expect(204);
    await eventually(() => fake.alarm(deleted!.delivery.receipt!)?.cancelled === true, { timeoutMs: 5_000 });
    await request(b.app).post('/notifications/alice/read-all').expect(200);
    await eventually(() => fake.alarm(readAll!.delivery.receipt!)?.cancelled === true, { timeoutMs: 5_000 });

    await eventually(async () => (await b.repository.get(read!.id))?.emergency?.cancelledAt !== undefined, { timeoutMs: 5_000 });
    expect(fake.count('cancel')).toBe(3);
    expect(fake.count('messages')).toBe(3);
  });
});
