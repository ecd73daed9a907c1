import { createCipheriv, createHmac, createSecretKey, randomFillSync, type KeyObject } from 'node:crypto';
import { crc32, gzipSync } from 'node:zlib';

/**
 * Pushover's end-to-end encryption of one field (pushover.net/api#e2ee): gzip the UTF-8 text, AES-256-CBC with a random
 * 16-byte IV and PKCS#7 padding, HMAC-SHA256 with the same key over IV‖ciphertext, sent as base64(IV‖ciphertext‖MAC).
 */

const ENCRYPTION_KEY = /^[0-9a-f]{64}$/i;
const IV_BYTES = 16;
const MAC_BYTES = 32;
const BLOCK = 16;

/** True for the 64 hexadecimal characters of a 256-bit key, as Pushover's apps show it. */
export function isEncryptionKey(text: string): boolean {
  return ENCRYPTION_KEY.test(text);
}

/** The key as a KeyObject: it prints and serializes without its bytes. */
export function toEncryptionKey(hex: string): KeyObject {
  if (!isEncryptionKey(hex)) throw new Error('an encryption key must be 64 hexadecimal characters');
  return createSecretKey(Buffer.from(hex, 'hex'));
}

/** The key's text in both cases, for redaction. */
export function encryptionKeyTexts(key: KeyObject): string[] {
  const hex = key.export().toString('hex');
  return [hex, hex.toUpperCase()];
}

/** The length of the base64 value a gzip member of `gzipBytes` encrypts to (PKCS#7 always adds 1 to 16 bytes). */
export function encodedLength(gzipBytes: number): number {
  const raw = IV_BYTES + (Math.floor(gzipBytes / BLOCK) + 1) * BLOCK + MAC_BYTES;
  return 4 * Math.ceil(raw / 3);
}

/** The longest gzip member whose encrypted value has at most `maxChars` characters. */
export function maxGzipBytes(maxChars: number): number {
  const raw = Math.floor(maxChars / 4) * 3;
  const ciphertext = Math.floor((raw - IV_BYTES - MAC_BYTES) / BLOCK) * BLOCK;
  return ciphertext - 1;
}

// Header of a gzip member (RFC 1952): magic, deflate, no flags, no time, no extra flags, OS unknown.
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
const STORED_BLOCK_MAX = 0xffff;

/** What a stored gzip member adds to its data: header, one 5-byte block header per 64 KiB, CRC-32 and size. */
export function storedGzipLength(bytes: number): number {
  return GZIP_HEADER.length + 5 * Math.max(1, Math.ceil(bytes / STORED_BLOCK_MAX)) + bytes + 8;
}

/**
 * A gzip member holding `data` in stored (uncompressed) deflate blocks, RFC 1951 BTYPE 00: what any gunzip reads, for
 * a fraction of the cost of a zlib stream (see docs/decisions/stored-gzip-fields.md).
 */
export function storedGzip(data: Buffer): Buffer {
  const out = Buffer.allocUnsafe(storedGzipLength(data.length));
  GZIP_HEADER.copy(out, 0);
  let at = GZIP_HEADER.length;
  let from = 0;
  do {
    const size = Math.min(STORED_BLOCK_MAX, data.length - from);
    out[at] = from + size === data.length ? 1 : 0;
    out.writeUInt16LE(size, at + 1);
    out.writeUInt16LE(~size & 0xffff, at + 3);
    data.copy(out, at + 5, from, from + size);
    at += 5 + size;
    from += size;
  } while (from < data.length);
  out.writeUInt32LE(crc32(data), at);
  out.writeUInt32LE(data.length % 2 ** 32, at + 4);
  return out;
}

/** The smallest gzip member of `text` within `maxBytes`, stored when that fits (no deflate), else deflated; or undefined. */
export function gzipWithin(text: string, maxBytes: number): Buffer | undefined {
  const data = Buffer.from(text, 'utf8');
  if (storedGzipLength(data.length) <= maxBytes) return storedGzip(data);
  const deflated = gzipSync(data, { level: 9 });
  return deflated.length <= maxBytes ? deflated : undefined;
}

// IVs are drawn from the CSPRNG 256 at a time: one draw per IV costs more than the rest of a short field's encryption.
const ivPool = Buffer.alloc(IV_BYTES * 256);
let ivAt = ivPool.length;

function nextIv(): Buffer {
  if (ivAt + IV_BYTES > ivPool.length) {
    randomFillSync(ivPool);
    ivAt = 0;
  }
  const iv = ivPool.subarray(ivAt, ivAt + IV_BYTES);
  ivAt += IV_BYTES;
  return iv;
}

/** base64(IV‖AES-256-CBC(gzip)‖HMAC-SHA256(IV‖ciphertext)) of an already gzipped field. */
export function sealGzip(gzip: Buffer, key: KeyObject): string {
  const iv = nextIv();
  const cipher = createCipheriv('aes-256-cbc', key, iv);
  const head = cipher.update(gzip);
  const tail = cipher.final();
  const mac = createHmac('sha256', key).update(iv).update(head).update(tail).digest();
  return Buffer.concat([iv, head, tail, mac]).toString('base64');
}
