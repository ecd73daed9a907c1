import { createCipheriv, createHmac, createSecretKey, randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { toEncryptionKey } from '../../src/adapters/pushover/field-cipher.js';
import { parseRecipientsFile } from '../../src/adapters/pushover/recipient-map.js';
import type { NotificationRecord } from '../../src/domain/notification.js';
import { JPEG } from '../support/files.js';
import { decryptField, startFakeE2eePushover } from './fake-e2ee-pushover.js';
import { startHouseholdApp } from './household-kit.js';
import { API_TOKEN, USER_KEY } from './pushover-test-kit.js';

const ALICE = 'aLiCe0000000000000000000000001';
const BOB = 'bOb00000000000000000000000002b';
const ALICE_KEY = '0f1e2d3c4b5a69788796a5b4c3d2e1f0'.repeat(2);
const DEFAULT_KEY = 'c0ffee00'.repeat(8);

let closeFake: (() => Promise<void>) | undefined;
afterEach(async () => closeFake?.());

async function household(options: { defaultKey?: ReturnType<typeof createSecretKey> } = {}) {
  const fake = await startFakeE2eePushover({ token: API_TOKEN, users: [BOB, USER_KEY], keys: { [ALICE]: ALICE_KEY } });
  closeFake = fake.close;
  const map = parseRecipientsFile(`recipients:\n  alice: { key: ${ALICE}, encryptionKey: ${ALICE_KEY.toUpperCase()} }\n  bob: ${BOB}\n`, 'recipients.yaml');
  const app = await startHouseholdApp(fake.url, {
    userKey: USER_KEY,
    recipients: { recipients: map.recipients, unmapped: 'default' },
    appName: 'Household',
    ...(options.defaultKey ? { encryptionKey: options.defaultKey } : {}),
  });
  return { fake, ...app };
}

/** A field as a correct client would encrypt it, with `key` (hex). */
function encrypt(text: string, key: string): string {
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-256-cbc', Buffer.from(key, 'hex'), iv);
  const ciphertext = Buffer.concat([cipher.update(gzipSync(Buffer.from(text))), cipher.final()]);
  const mac = createHmac('sha256', Buffer.from(key, 'hex')).update(iv).update(ciphertext).digest();
  return Buffer.concat([iv, ciphertext, mac]).toString('base64');
}

async function post(url: string, fields: Record<string, string>): Promise<number> {
  const form = new FormData();
  for (const [name, value] of Object.entries({ token: API_TOKEN, user: ALICE, ...fields })) form.append(name, value);
  return (await fetch(`${url}/1/messages.json`, { method: 'POST', body: form })).status;
}

describe('the fake Pushover with end-to-end encryption', () => {
  it('accepts what a phone can decrypt, and refuses plaintext, a wrong MAC, an over-limit field, no title and a url_title', async () => {
    const { url, refused, close } = await startFakeE2eePushover({ token: API_TOKEN, users: [], keys: { [ALICE]: ALICE_KEY } });
    closeFake = close;
    const good = { encrypted: '1', message: encrypt('m', ALICE_KEY), title: encrypt('t', ALICE_KEY) };

    expect(await post(url, good)).toBe(200);
    expect(await post(url, { message: 'in clear', title: 't' })).toBe(400);
    expect(await post(url, { ...good, message: encrypt('m', 'ab'.repeat(32)) })).toBe(400);
    expect(await post(url, { ...good, message: encrypt(randomBytes(800).toString('hex'), ALICE_KEY) })).toBe(400);
    expect(await post(url, { encrypted: '1', message: good.message })).toBe(400);
    expect(await post(url, { ...good, url_title: 'Open' })).toBe(400);

    expect(refused).toEqual([
      'plaintext to a recipient with end-to-end encryption',
      'message does not decrypt: wrong MAC',
      'message is longer than 1024 characters',
      'an encrypted message needs a title',
      'url_title cannot be sent encrypted',
    ]);
  });
});

describe('delivery to a recipient with an encryption key', () => {
  it('sends message, title and url encrypted with their key (decrypting to the record), others in clear, never the key', async () => {
    const { app, fake, events } = await household();

    const alice = await request(app)
      .post('/notifications')
      .send({ recipient: 'alice', title: 'Door', message: 'Front door opened', url: 'https://cam.lan/door', urlTitle: 'Camera', priority: 1 });
    const bob = await request(app).post('/notifications').send({ recipient: 'bob', title: 'Bins', message: 'Bins out tonight' });

    expect(alice.body.delivery).toMatchObject({ status: 'sent', to: 'alice' });
    expect(bob.body.delivery).toMatchObject({ status: 'sent', to: 'bob' });
    expect(fake.refused).toEqual([]);
    expect(fake.decrypted.map(({ message, title, url }) => ({ message, title, url }))).toEqual([
      { message: 'Front door opened', title: 'Door', url: 'https://cam.lan/door' },
    ]);
    expect(fake.decrypted[0]!.form.fields).toMatchObject({ encrypted: '1', priority: '1', user: ALICE });
    const plain = fake.received.find((form) => form.fields.user === BOB)!;
    expect(plain.fields).toMatchObject({ message: 'Bins out tonight', title: 'Bins' });
    expect(plain.fields.encrypted).toBeUndefined();
    expect(alice.body.delivery.note).toMatch(/url title was not sent/);
    const everything = JSON.stringify([alice.body, bob.body, events, fake.received]);
    expect(everything.toLowerCase()).not.toContain(ALICE_KEY);
  });

  it('keeps a long multi-byte message whole in the history and sends it shortened, never in clear', async () => {
    const { app, fake } = await household();
    const message = Array.from({ length: 500 }, (_, i) => String.fromCodePoint(0x4e00 + ((i * 7919) % 20_000))).join('') + '🚪'.repeat(200);

    const created = await request(app).post('/notifications').send({ recipient: 'alice', title: 'Tür', message });
    const stored = await request(app).get(`/notifications/single/${created.body.id}`);

    expect((stored.body as NotificationRecord).message).toBe(message);
    expect((stored.body as NotificationRecord).delivery).toEqual(created.body.delivery);
    expect(created.body.delivery.status).toBe('sent');
    expect(created.body.delivery.note).toMatch(/message was shortened/);
    const sent = fake.decrypted[0]!;
    expect(sent.message.endsWith('…')).toBe(true);
    expect(message.startsWith(sent.message.slice(0, -1))).toBe(true);
    expect(fake.received[0]!.fields.message!.length).toBeLessThanOrEqual(1024);
    expect(fake.received[0]!.fields.message).not.toContain(message.slice(0, 8));
  });

  it('leaves out a url too long once encrypted, keeps it in the history, and says so', async () => {
    const { app, fake } = await household();
    const url = `https://grafana.lan/d/${randomBytes(360).toString('base64url')}`;

    const created = await request(app).post('/notifications').send({ recipient: 'alice', message: 'disk full', url });

    expect(created.body.url).toBe(url);
    expect(created.body.delivery).toMatchObject({ status: 'sent', note: expect.stringMatching(/url was left out/) });
    expect(fake.decrypted[0]).toMatchObject({ message: 'disk full', title: 'Household' });
    expect(fake.decrypted[0]!.url).toBeUndefined();
  });

  it('does not send an attachment to an encrypted recipient, and says so; a plain recipient still gets it', async () => {
    const { app, fake } = await household();
    const attach = (recipient: string) =>
      request(app)
        .post('/notifications')
        .field('recipient', recipient)
        .field('message', 'Motion')
        .attach('attachment', JPEG, { filename: 'door.jpg', contentType: 'image/jpeg' });

    const alice = await attach('alice');
    const bob = await attach('bob');

    expect(alice.body.delivery).toMatchObject({ status: 'sent', note: expect.stringMatching(/attachment was not sent/) });
    expect(bob.body.delivery.note).toBeUndefined();
    const filesOf = (user: string) => fake.received.find((form) => form.fields.user === user)!.files.length;
    expect([filesOf(ALICE), filesOf(BOB)]).toEqual([0, 1]);
  });

  it('encrypts for `default` with its own key (PROVIDER_ENCRYPTION_KEY), sending the app name as a missing title', async () => {
    const fake = await startFakeE2eePushover({ token: API_TOKEN, users: [], keys: { [USER_KEY]: DEFAULT_KEY } });
    closeFake = fake.close;
    const { app } = await startHouseholdApp(fake.url, { userKey: USER_KEY, encryptionKey: toEncryptionKey(DEFAULT_KEY) });

    const created = await request(app).post('/notifications').send({ recipient: 'guest', message: 'wifi code 1234' });

    expect(created.body.delivery).toMatchObject({ status: 'sent', to: 'default' });
    expect(fake.decrypted.map(({ message, title }) => ({ message, title }))).toEqual([{ message: 'wifi code 1234', title: 'homeops' }]);
  });

  it('fails the delivery with its reason, sending nothing, when the message cannot be encrypted', async () => {
    const { app, fake } = await household({ defaultKey: createSecretKey(randomBytes(16)) });

    const created = await request(app).post('/notifications').send({ recipient: 'guest', message: 'never in clear' });

    expect(created.body.delivery).toMatchObject({ status: 'failed', error: expect.stringMatching(/could not be encrypted for recipient "default"/) });
    expect(fake.received).toEqual([]);
  });

  it('decrypts each field with the key Pushover would use, so a wrong key cannot read it', async () => {
    const { app, fake } = await household();
    await request(app).post('/notifications').send({ recipient: 'alice', title: 'A', message: 'B' });
    expect(() => decryptField(fake.received[0]!.fields.message!, DEFAULT_KEY)).toThrow(/wrong MAC/);
  });
});
