import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '@homeops/test-kit';
import { PushoverService } from '../../src/pushover-service.js';
import { startFakePushoverApi } from './fake-pushover-api.js';
import { startHouseholdApp } from './household-kit.js';
import { API_TOKEN, USER_KEY } from './pushover-test-kit.js';

let closeFake: (() => Promise<void>) | undefined;
afterEach(async () => closeFake?.());

async function fakePushover() {
  const fake = await startFakePushoverApi({
    token: API_TOKEN,
    users: { [USER_KEY]: ['desk'] },
    sounds: { pushover: 'Pushover (default)', doorbell: 'Doorbell (custom)' },
  });
  closeFake = fake.close;
  return fake;
}

describe("the app's sound list", () => {
  it('is read from the sounds API at start; a custom sound is accepted and a name not in the list is a 400 naming the field', async () => {
    const fake = await fakePushover();
    const { app, provider } = await startHouseholdApp(fake.url, { userKey: USER_KEY });
    await eventually(() => provider.soundList().source === 'pushover');

    const list = (await request(app).get('/sounds')).body;
    const custom = await request(app).post('/notifications').send({ recipient: 'me', message: 'ding', sound: 'doorbell' });
    const builtInNotInApp = await request(app).post('/notifications').send({ recipient: 'me', message: 'ding', sound: 'siren' });

    expect(list).toEqual({
      sounds: [
        { name: 'pushover', description: 'Pushover (default)' },
        { name: 'doorbell', description: 'Doorbell (custom)' },
      ],
      source: 'pushover',
      fetchedAt: expect.any(String),
    });
    expect(custom.status).toBe(201);
    expect(fake.calls.find((c) => c.endpoint === 'messages')?.fields.sound).toBe('doorbell');
    expect(builtInNotInApp.status).toBe(400);
    expect(builtInNotInApp.body.details).toEqual([{ path: 'body.sound', message: "must be one of this app's sounds (GET /sounds): pushover, doorbell" }]);
    expect(fake.count('sounds')).toBe(1);
  });

  it("falls back to Pushover's built-in sounds while the list cannot be read", async () => {
    const fake = await fakePushover();
    fake.failSounds(503);
    const { app } = await startHouseholdApp(fake.url, { userKey: USER_KEY });
    await eventually(() => fake.count('sounds') === 1);

    const list = (await request(app).get('/sounds')).body;
    expect(list.source).toBe('built-in');
    expect(list.sounds).toHaveLength(23);
    expect((await request(app).post('/notifications').send({ recipient: 'me', message: 'x', sound: 'siren' })).status).toBe(201);
    expect((await request(app).post('/notifications').send({ recipient: 'me', message: 'x', sound: 'doorbell' })).status).toBe(400);
  });
});

describe('PushoverService (the library) and custom sounds', () => {
  it("validates against the built-in names until loadSounds() reads the app's list, then against that list", async () => {
    const fake = await fakePushover();
    const pushover = new PushoverService({ userKey: USER_KEY, apiToken: API_TOKEN, apiUrl: fake.url });
    await expect(pushover.sendNotification({ message: 'ding', sound: 'doorbell' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });

    expect(await pushover.loadSounds()).toEqual(['pushover', 'doorbell']);
    expect(pushover.getSounds()).toEqual(['pushover', 'doorbell']);
    await pushover.sendNotification({ message: 'ding', sound: 'doorbell' });
    await expect(pushover.sendNotification({ message: 'ding', sound: 'siren' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: 'Invalid notification: sound must be one of pushover, doorbell',
    });
    expect(fake.count('messages')).toBe(1);
  });

  it('rejects loadSounds() with UNAVAILABLE when the list cannot be read, and keeps the built-in names', async () => {
    const fake = await fakePushover();
    fake.failSounds(503);
    const pushover = new PushoverService({ userKey: USER_KEY, apiToken: API_TOKEN, apiUrl: fake.url });
    await expect(pushover.loadSounds()).rejects.toMatchObject({ code: 'UNAVAILABLE', retryable: true });
    expect(pushover.getSounds()).toHaveLength(23);
  });
});

describe('the rejection circuit (Pushover blocks IPs that keep sending after 4xx)', () => {
  it('stops sending after repeated 4xx, shows it in /health, keeps deliveries pending, and resumes after a validation succeeds', async () => {
    const fake = await fakePushover();
    const { app, provider } = await startHouseholdApp(fake.url, { userKey: USER_KEY, maxRejections: 3, probeDelayMs: 400 });
    await eventually(() => provider.status().recipients?.[0]?.state === 'valid');
    const rejected = { status: 400, body: { status: 0, errors: ['message cannot be blank'] } };
    fake.force(rejected, rejected, rejected);

    for (let i = 0; i < 3; i++)
      expect(
        (
          await request(app)
            .post('/notifications')
            .send({ recipient: 'me', message: `bad ${i}` })
        ).body.delivery.status,
      ).toBe('failed');
    const held = await request(app).post('/notifications').send({ recipient: 'me', message: 'held back' });
    const health = (await request(app).get('/health')).body;

    expect(fake.count('messages')).toBe(3);
    expect(held.body.delivery).toMatchObject({ status: 'pending', error: expect.stringContaining('Sending is paused') });
    expect(health.status).toBe('degraded');
    expect(health.provider.circuit).toMatchObject({
      open: true,
      reason: expect.stringContaining('3 requests in a row were rejected'),
      nextProbeAt: expect.any(String),
    });
    expect(health.problems).toEqual(expect.arrayContaining([expect.stringContaining('sending is paused after repeated rejections')]));

    const validationsBefore = fake.count('validate');
    await eventually(() => fake.calls.some((c) => c.endpoint === 'messages' && c.fields.message === 'held back'), { timeoutMs: 5000 });
    expect(fake.count('validate')).toBe(validationsBefore + 1);
    const resumed = (await request(app).get('/health')).body;
    expect(resumed.provider.circuit.open).toBe(false);
  });

  it('does not count a 429 (quota) or a success toward the circuit', async () => {
    const fake = await fakePushover();
    const { app, provider } = await startHouseholdApp(fake.url, { userKey: USER_KEY, maxRejections: 2 });
    const rejected = { status: 400, body: { status: 0, errors: ['bad'] } };
    fake.force(rejected, { status: 200, body: { status: 1, request: 'r' } }, rejected, { status: 429, body: { status: 0, errors: ['quota'] } });
    for (let i = 0; i < 4; i++)
      await request(app)
        .post('/notifications')
        .send({ recipient: 'me', message: `m${i}` });
    expect(provider.status().circuit?.open).toBe(false);
  });
});
