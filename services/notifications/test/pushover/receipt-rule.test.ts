import { ManualClock } from '@homeops/common';
import { drainEventLoop, eventually } from '@homeops/test-kit';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { parseRecipientsVariable } from '../../src/adapters/pushover/recipient-map.js';
import type { NotificationRecord } from '../../src/domain/notification.js';
import { openRealStorage } from '../support/test-app.js';
import { startFakePushoverApi } from './fake-pushover-api.js';
import { startHouseholdApp } from './household-kit.js';
import { API_TOKEN, USER_KEY } from './pushover-test-kit.js';

// Pushover asks for at most one check of a receipt every 5 seconds. Whatever asks (the poll, a read, a read-all, a
// restart), the watch never checks one sooner than that after the last check; a ManualClock moves the time.
const ALICE = 'aLiCe0000000000000000000000001';
const POLL_SECONDS = 30;
const alarm = { recipient: 'alice', title: 'Smoke', message: 'Smoke in the kitchen', priority: 2 };

let closeFake: (() => Promise<void>) | undefined;
afterEach(async () => closeFake?.());

async function fakePushover() {
  const fake = await startFakePushoverApi({ token: API_TOKEN, users: { [USER_KEY]: [], [ALICE]: ['iphone'] } });
  closeFake = fake.close;
  return fake;
}

const providerFor = { userKey: USER_KEY, recipients: { recipients: parseRecipientsVariable(`alice=${ALICE}`), unmapped: 'default' as const } };

describe("Pushover's receipt rule", () => {
  it('checks a receipt read 70 ms after a poll again only 5 s after that poll, then cancels', async () => {
    const fake = await fakePushover();
    const clock = new ManualClock();
    const { app, emergencies } = await startHouseholdApp(fake.url, providerFor, { clock, config: { EMERGENCY_POLL_SECONDS: POLL_SECONDS } });
    const created = (await request(app).post('/notifications').send(alarm)).body as NotificationRecord;
    const receipt = created.delivery.receipt!;

    clock.advance(POLL_SECONDS * 1000);
    await eventually(() => fake.count('receipt', receipt) === 1, 'the first poll');
    clock.advance(70);
    await request(app).patch(`/notifications/${created.id}/read`).expect(200);
    await request(app).post('/notifications/alice/read-all').expect(200);
    clock.advance(4_929);
    await drainEventLoop();
    await emergencies!.settled();
    expect(fake.count('receipt', receipt)).toBe(1);
    expect(fake.count('cancel')).toBe(0);

    clock.advance(1);
    await eventually(() => fake.alarm(receipt)!.cancelled, 'the cancel after the second check');
    expect(fake.count('receipt', receipt)).toBe(2);
  });

  it('checks what a previous run left ringing no sooner than 5 s after the start', async () => {
    const fake = await fakePushover();
    const { repository } = await openRealStorage();
    const first = await startHouseholdApp(fake.url, providerFor, { repository, clock: new ManualClock(), config: { EMERGENCY_POLL_SECONDS: POLL_SECONDS } });
    const created = (await request(first.app).post('/notifications').send(alarm)).body as NotificationRecord;
    await first.stop();

    const clock = new ManualClock();
    const second = await startHouseholdApp(fake.url, providerFor, { repository, clock, config: { EMERGENCY_POLL_SECONDS: POLL_SECONDS } });
    await eventually(() => second.emergencies!.size === 1, 'the alarm followed again');
    clock.advance(4_999);
    await drainEventLoop();
    await second.emergencies!.settled();
    expect(fake.count('receipt', created.delivery.receipt)).toBe(0);
    clock.advance(1);
    await eventually(() => fake.count('receipt', created.delivery.receipt) === 1, 'the first check after the restart');
  });
});
