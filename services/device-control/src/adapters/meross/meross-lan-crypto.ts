import { createCipheriv, createDecipheriv, createHash } from 'node:crypto';

/** The fixed IV of the encrypted LAN variant: sixteen ASCII zeros. */
const IV = Buffer.from('0'.repeat(16), 'utf8');
const BLOCK = 16;

/**
 * The AES-256 key of a device that declares Appliance.Encrypt.ECDHE: despite the name, no key
 * exchange on the wire. As MerossIot and meross_lan derive it: the md5 hex digest, as 32 ASCII bytes, of
 * uuid[3:22] + key[1:9] + the device's MAC + key[10:28], where key is the account key.
 */
export function lanEncryptionKey(uuid: string, accountKey: string, macAddress: string): Buffer {
  const material = `${uuid.slice(3, 22)}${accountKey.slice(1, 9)}${macAddress}${accountKey.slice(10, 28)}`;
  return Buffer.from(createHash('md5').update(material).digest('hex'), 'utf8');
}

/** The body of an encrypted request: AES-256-CBC over the JSON zero-padded to whole blocks (always at least one zero), base64. */
export function encryptLanBody(json: string, key: Buffer): string {
  const plain = Buffer.from(json, 'utf8');
  const padded = Buffer.concat([plain, Buffer.alloc(BLOCK - (plain.length % BLOCK))]);
  const cipher = createCipheriv('aes-256-cbc', key, IV).setAutoPadding(false);
  return Buffer.concat([cipher.update(padded), cipher.final()]).toString('base64');
}

/** The JSON of an encrypted answer, its zero padding removed; throws when it is not whole AES blocks. */
export function decryptLanBody(body: string, key: Buffer): string {
  const decipher = createDecipheriv('aes-256-cbc', key, IV).setAutoPadding(false);
  const plain = Buffer.concat([decipher.update(Buffer.from(body.trim(), 'base64')), decipher.final()]);
  let end = plain.length;
  while (end > 0 && plain[end - 1] === 0) end -= 1;
  return plain.subarray(0, end).toString('utf8');
}
