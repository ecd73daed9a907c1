import { createHmac, randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { encodedLength, maxGzipBytes, sealGzip, storedGzip, toEncryptionKey } from '../../src/adapters/pushover/field-cipher.js';
import { ENCRYPTED_LIMITS, fitGzip, sealFields } from '../../src/adapters/pushover/seal-fields.js';
import type { PushoverFields } from '../../src/adapters/pushover/pushover-request.js';
import { decryptField } from './fake-e2ee-pushover.js';

const KEY_HEX = 'a3'.repeat(8) + '5f0c9e1d'.repeat(6);
const KEY = toEncryptionKey(KEY_HEX);

/** Random code points from a range, so gzip cannot shrink them much. */
const randomText = (count: number, from: number, span: number) =>
  Array.from({ length: count }, () => String.fromCodePoint(from + Math.floor(Math.random() * span))).join('');
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const PLAIN: PushoverFields = {
  message: 'Front door opened',
  priority: '2',
  title: 'Door',
  sound: 'siren',
  url: 'https://cam.lan/door',
  url_title: 'Camera',
  timestamp: 1_764_000_000,
  ttl: 3600,
  device: 'iphone',
  retry: 60,
  expire: 3600,
  tags: 'door',
};

describe('sealFields: Pushover end-to-end encryption of one message', () => {
  it('replaces message, title and url by ciphertext that decrypts with the key, and keeps the rest clear', () => {
    const { fields, notes } = sealFields(PLAIN, KEY, 'homeops');

    expect(decryptField(String(fields.message), KEY_HEX)).toBe('Front door opened');
    expect(decryptField(String(fields.title), KEY_HEX)).toBe('Door');
    expect(decryptField(String(fields.url), KEY_HEX)).toBe('https://cam.lan/door');
    expect(fields).toMatchObject({
      encrypted: 1,
      priority: '2',
      sound: 'siren',
      timestamp: 1_764_000_000,
      ttl: 3600,
      device: 'iphone',
      retry: 60,
      expire: 3600,
      tags: 'door',
    });
    expect(fields.url_title).toBeUndefined();
    expect(notes).toEqual(['the url title was not sent: it cannot be encrypted within its 100 characters']);
  });

  it('draws a fresh IV for every field, so equal texts never give equal ciphertexts', () => {
    const a = sealFields({ message: 'same', title: 'same', priority: '0' }, KEY, 'homeops').fields;
    const b = sealFields({ message: 'same', title: 'same', priority: '0' }, KEY, 'homeops').fields;
    const ivs = [a.message, a.title, b.message, b.title].map((v) => Buffer.from(String(v), 'base64').subarray(0, 16).toString('hex'));
    expect(new Set(ivs).size).toBe(4);
  });

  it('carries an HMAC-SHA256 over IV and ciphertext with the same key, and a changed byte fails it', () => {
    const raw = Buffer.from(String(sealFields(PLAIN, KEY, 'homeops').fields.message), 'base64');
    const mac = raw.subarray(raw.length - 32);
    expect(
      createHmac('sha256', Buffer.from(KEY_HEX, 'hex'))
        .update(raw.subarray(0, raw.length - 32))
        .digest(),
    ).toEqual(mac);

    const tampered = Buffer.from(raw);
    tampered[20]! ^= 1;
    expect(() => decryptField(tampered.toString('base64'), KEY_HEX)).toThrow(/wrong MAC/);
    expect(() => decryptField(raw.toString('base64'), 'b4'.repeat(32))).toThrow(/wrong MAC/);
  });

  it('sends the app name as the title of a message without one', () => {
    const { fields } = sealFields({ message: 'm', priority: '0' }, KEY, 'Home');
    expect(decryptField(String(fields.title), KEY_HEX)).toBe('Home');
  });

  it('shortens long multi-byte text with "…" until its ciphertext fits, keeping whole code points, and says so', () => {
    // CJK (3 UTF-8 bytes) and emoji (surrogate pairs, 4 bytes): far beyond the limits once encrypted.
    const message = randomText(400, 0x4e00, 20_000) + randomText(300, 0x1f300, 500);
    const title = randomText(120, 0x1f300, 500);

    const { fields, notes } = sealFields({ message, title, priority: '0' }, KEY, 'homeops');

    expect(String(fields.message).length).toBeLessThanOrEqual(ENCRYPTED_LIMITS.message);
    expect(String(fields.title).length).toBeLessThanOrEqual(ENCRYPTED_LIMITS.title);
    for (const [sent, whole] of [
      [decryptField(String(fields.message), KEY_HEX), message],
      [decryptField(String(fields.title), KEY_HEX), title],
    ] as const) {
      expect(sent.endsWith('…')).toBe(true);
      expect(whole.startsWith(sent.slice(0, -1))).toBe(true);
      expect(LONE_SURROGATE.test(sent)).toBe(false);
      expect(sent.length).toBeGreaterThan(10);
    }
    expect(notes).toEqual([
      "the message was shortened to fit Pushover's 1024 characters once encrypted",
      "the title was shortened to fit Pushover's 250 characters once encrypted",
    ]);
  });

  it('keeps as much as fits: one more code point would not', () => {
    const text = randomText(900, 0x4e00, 20_000);
    const max = maxGzipBytes(ENCRYPTED_LIMITS.message);
    const { gzip, shortened } = fitGzip(text, max);
    const kept = gunzipSync(gzip).toString('utf8').slice(0, -1);
    const next = Array.from(text)[Array.from(kept).length]!;

    expect(shortened).toBe(true);
    expect(encodedLength(gzip.length)).toBeLessThanOrEqual(ENCRYPTED_LIMITS.message);
    expect(fitGzip(`${kept}${next}…`, max).shortened).toBe(true);
  });

  it('sends a message that fits whole, compressing it when stored it would not fit', () => {
    const message = 'disk sda failing; '.repeat(56);
    const { fields, notes } = sealFields({ message, title: 't', priority: '0' }, KEY, 'homeops');
    expect(decryptField(String(fields.message), KEY_HEX)).toBe(message);
    expect(notes).toEqual([]);
  });

  it('leaves out a url whose ciphertext does not fit, never cutting it, and says so', () => {
    const url = `https://example.com/${randomBytes(300).toString('hex')}`;
    const { fields, notes } = sealFields({ message: 'm', title: 't', priority: '0', url, url_title: 'Open' }, KEY, 'homeops');
    expect(fields.url).toBeUndefined();
    expect(fields.url_title).toBeUndefined();
    expect(notes).toEqual(["the url was left out: encrypted, it is longer than Pushover's 512 characters"]);
  });

  it('does not send an attachment to an encrypted recipient, and says so', () => {
    const { fields, notes } = sealFields(
      { message: 'm', title: 't', priority: '0', file: { name: 'door.jpg', type: 'image/jpeg', data: Buffer.from([1, 2]) } },
      KEY,
      'homeops',
    );
    expect(fields.file).toBeUndefined();
    expect(notes).toEqual(['the attachment was not sent: Pushover does not encrypt attachments']);
  });
});

describe('the field cipher', () => {
  it('writes stored gzip members that gunzip reads back, across block boundaries', () => {
    for (const size of [0, 1, 100, 65_535, 65_536, 200_000]) {
      const data = randomBytes(size);
      expect(gunzipSync(storedGzip(data))).toEqual(data);
    }
  });

  it('predicts the encrypted length from the gzip length, and the largest gzip each limit takes', () => {
    for (const bytes of [0, 15, 16, 31, 127, 128, 335, 336, 719, 720]) {
      expect(sealGzip(randomBytes(bytes), KEY)).toHaveLength(encodedLength(bytes));
    }
    expect([maxGzipBytes(1024), maxGzipBytes(250), maxGzipBytes(512)]).toEqual([719, 127, 335]);
    expect([encodedLength(719), encodedLength(720), encodedLength(127), encodedLength(128)]).toEqual([1024, 1048, 236, 256]);
  });

  it('refuses a malformed key and never prints one it holds', () => {
    expect(() => toEncryptionKey('abc')).toThrow(/64 hexadecimal characters/);
    expect(() => toEncryptionKey('g'.repeat(64))).toThrow(/64 hexadecimal characters/);
    expect(inspect(KEY)).not.toContain(KEY_HEX.slice(0, 16));
    expect(JSON.stringify({ KEY })).not.toContain(KEY_HEX.slice(0, 16));
  });
});
