import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '@homeops/test-kit';
import { loadRecipientMap, parseRecipientsFile, parseRecipientsVariable } from '../../src/adapters/pushover/recipient-map.js';
import { makeTempDir } from '../support/test-app.js';
import { startFakePushoverApi } from './fake-pushover-api.js';
import { startHouseholdApp } from './household-kit.js';
import { API_TOKEN, USER_KEY } from './pushover-test-kit.js';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const ALICE = 'aLiCe0000000000000000000000001';
const BOB = 'bOb00000000000000000000000002b';
const UNKNOWN = 'nObOdy000000000000000000000003';

let closeFake: (() => Promise<void>) | undefined;
afterEach(async () => closeFake?.());

async function fakePushover() {
  const fake = await startFakePushoverApi({ token: API_TOKEN, users: { [USER_KEY]: ['desk'], [ALICE]: ['iphone', 'ipad'], [BOB]: ['pixel'] } });
  closeFake = fake.close;
  return fake;
}

const map = (text: string, unmapped: 'default' | 'refuse' = 'default') => ({ recipients: parseRecipientsVariable(text), unmapped });

describe('recipient map configuration', () => {
  it('reads the variable form: name=key[:devices];…', () => {
    expect([...parseRecipientsVariable(` alice=${ALICE}:iphone,ipad ; bob=${BOB}`)]).toEqual([
      ['alice', { key: ALICE, devices: ['iphone', 'ipad'] }],
      ['bob', { key: BOB, devices: [] }],
    ]);
  });

  it('reads the YAML file, merges the variable over it, and takes unmapped from the file unless the variable says otherwise', async () => {
    const file = join(await makeTempDir(), 'recipients.yaml');
    await writeFile(file, `unmapped: refuse\nrecipients:\n  alice: { key: ${ALICE}, devices: [iphone] }\n  bob: ${BOB}\n`);
    const fromFile = loadRecipientMap({ file });
    expect(fromFile.unmapped).toBe('refuse');
    expect(fromFile.recipients.get('alice')).toEqual({ key: ALICE, devices: ['iphone'] });
    const merged = loadRecipientMap({ file, variable: `alice=${BOB}`, unmapped: 'default' });
    expect(merged.recipients.get('alice')).toEqual({ key: BOB, devices: [] });
    expect(merged.unmapped).toBe('default');
    expect(loadRecipientMap({ file: join(file, '..', 'absent.yaml') }).recipients.size).toBe(0);
  });

  it('refuses a bad map with a message that names the recipient and never the key', () => {
    const secretish = 'tooShortKeyButStillSecret';
    for (const bad of [
      () => parseRecipientsVariable(`alice=${secretish}`),
      () => parseRecipientsFile(`recipients:\n  alice: ${secretish}\n`, 'recipients.yaml'),
    ]) {
      expect(bad).toThrow(/recipient "alice"/);
      expect(bad).not.toThrow(new RegExp(secretish));
    }
    expect(() => parseRecipientsVariable(`default=${ALICE}`)).toThrow(/kept for PROVIDER_USER_KEY/);
    expect(() => parseRecipientsVariable(`alice=${ALICE}:bad device!`)).toThrow(/invalid device name/);
    expect(() => parseRecipientsFile('recipients: [1, 2]', 'r.yaml')).toThrow(/recipients must map/);
    expect(() => parseRecipientsFile('recipient:\n  a: b', 'r.yaml')).toThrow(/unknown setting recipient/);
  });
});

describe('a household: each recipient reaches their own phone', () => {
  it('sends each recipient to its own key and devices, the unmapped to the default key, and records the alias only', async () => {
    const fake = await fakePushover();
    const { app } = await startHouseholdApp(fake.url, { userKey: USER_KEY, recipients: map(`alice=${ALICE}:iphone;bob=${BOB}`) });

    const alice = await request(app).post('/notifications').send({ recipient: 'alice', message: 'dinner' });
    const bob = await request(app).post('/notifications').send({ recipient: 'bob', message: 'bins', device: 'pixel' });
    const guest = await request(app).post('/notifications').send({ recipient: 'guest', message: 'wifi' });

    const sent = fake.calls.filter((c) => c.endpoint === 'messages').map((c) => [c.fields.message, c.fields.user, c.fields.device]);
    expect(sent).toEqual([
      ['dinner', ALICE, 'iphone'],
      ['bins', BOB, 'pixel'],
      ['wifi', USER_KEY, undefined],
    ]);
    expect([alice.body.delivery, bob.body.delivery, guest.body.delivery]).toEqual([
      expect.objectContaining({ status: 'sent', to: 'alice' }),
      expect.objectContaining({ status: 'sent', to: 'bob' }),
      expect.objectContaining({ status: 'sent', to: 'default' }),
    ]);
    const everything = JSON.stringify([alice.body, bob.body, guest.body, (await request(app).get('/health')).body]);
    for (const key of [ALICE, BOB, USER_KEY, API_TOKEN]) expect(everything).not.toContain(key);
  });

  it('refuses an unmapped recipient with 400 when the map says so, before anything is stored or sent', async () => {
    const fake = await fakePushover();
    const { app, repository } = await startHouseholdApp(fake.url, { userKey: USER_KEY, recipients: map(`alice=${ALICE}`, 'refuse') });

    const res = await request(app).post('/notifications').send({ recipient: 'guest', message: 'wifi' });

    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'No Pushover key for recipient "guest"', solution: expect.stringContaining('RECIPIENTS_FILE') });
    expect(await repository.recipients()).toEqual([]);
    expect(fake.count('messages')).toBe(0);
  });

  it('works without a default key when every recipient is mapped: the others are refused', async () => {
    const fake = await fakePushover();
    const { app } = await startHouseholdApp(fake.url, { recipients: map(`alice=${ALICE}`) });
    expect((await request(app).post('/notifications').send({ recipient: 'alice', message: 'hi' })).body.delivery).toMatchObject({
      status: 'sent',
      to: 'alice',
    });
    expect((await request(app).post('/notifications').send({ recipient: 'guest', message: 'hi' })).status).toBe(400);
  });

  it('validates every key at start (no message sent): a bad key or device turns /health degraded naming the recipient, and that recipient is not sent to', async () => {
    const fake = await fakePushover();
    const { app, provider } = await startHouseholdApp(fake.url, {
      userKey: USER_KEY,
      recipients: map(`alice=${ALICE}:iphone,watch;bob=${BOB};carol=${UNKNOWN}`),
    });

    await eventually(() => (provider.status().recipients ?? []).every((r) => r.state !== 'unchecked'));
    expect(fake.count('validate')).toBe(4);
    const health = (await request(app).get('/health')).body;

    expect(fake.count('messages')).toBe(0);
    expect(health.status).toBe('degraded');
    expect(health.provider.recipients).toEqual([
      expect.objectContaining({ recipient: 'default', state: 'valid', devices: ['desk'] }),
      expect.objectContaining({ recipient: 'alice', state: 'invalid', problem: 'no device named watch (the key has iphone, ipad)' }),
      expect.objectContaining({ recipient: 'bob', state: 'valid' }),
      expect.objectContaining({ recipient: 'carol', state: 'invalid', problem: 'Pushover refused the key: user key is invalid' }),
    ]);
    expect(health.problems).toEqual(expect.arrayContaining(['recipient carol: Pushover refused the key: user key is invalid']));
    expect(JSON.stringify(health)).not.toContain(UNKNOWN);

    const carol = await request(app).post('/notifications').send({ recipient: 'carol', message: 'hi' });
    expect(carol.body.delivery).toMatchObject({ status: 'failed', to: 'carol', error: expect.stringContaining('refused the key of recipient "carol"') });
    expect(fake.count('messages')).toBe(0);
  });
});
