import { createCipheriv, createDecipheriv } from 'node:crypto';
import { md5 } from './emulator-api.js';

// The encrypted LAN variant of devices that declare Appliance.Encrypt.ECDHE, as meross_lan's merossclient implements
// it (protocol/message.py compute_message_encryption_key, httpclient.py async_request_raw, emulator/mixins handle):
// no key exchange on the wire; AES-256-CBC with a fixed IV of sixteen ASCII zeros, the JSON zero-padded to a
// multiple of 16 bytes (a full block of zeros when it already is one), the result in base64.
const IV = Buffer.from('0000000000000000', 'utf8');

/** The 32 bytes of the AES-256 key: the md5 hex of uuid[3:22] + key[1:9] + MAC + key[10:28], as text. */
export function lanEncryptionKey(uuid: string, accountKey: string, macAddress: string): Buffer {
  return Buffer.from(md5(`${uuid.slice(3, 22)}${accountKey.slice(1, 9)}${macAddress}${accountKey.slice(10, 28)}`), 'utf8');
}

/** A message body as the encrypted variant carries it. */
export function encryptLanBody(text: string, key: Buffer): string {
  const plain = Buffer.from(text, 'utf8');
  const padded = Buffer.concat([plain, Buffer.alloc(16 - (plain.length % 16))]);
  const cipher = createCipheriv('aes-256-cbc', key, IV).setAutoPadding(false);
  return Buffer.concat([cipher.update(padded), cipher.final()]).toString('base64');
}

/** The text of an encrypted body, its zero padding removed; throws when it is no whole number of AES blocks. */
export function decryptLanBody(body: string, key: Buffer): string {
  const decipher = createDecipheriv('aes-256-cbc', key, IV).setAutoPadding(false);
  const plain = Buffer.concat([decipher.update(Buffer.from(body.trim(), 'base64')), decipher.final()]);
  return plain.toString('utf8').replace(/\0+$/, '');
}
