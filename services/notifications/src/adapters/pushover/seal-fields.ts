import type { KeyObject } from 'node:crypto';
import { DeliveryError } from '../../domain/push-provider.js';
import { gzipWithin, maxGzipBytes, sealGzip } from './field-cipher.js';
import type { PushoverFields } from './pushover-request.js';

/** Pushover's limits, counted here on the encrypted value (safe whichever way Pushover counts them). */
export const ENCRYPTED_LIMITS = { message: 1024, title: 250, url: 512 } as const;

const ELLIPSIS = '…';

/** A field's gzip member within `maxBytes`: the whole text, else the longest code-point prefix with "…" that fits. */
export function fitGzip(text: string, maxBytes: number): { gzip: Buffer; shortened: boolean } {
  const whole = gzipWithin(text, maxBytes);
  if (whole) return { gzip: whole, shortened: false };
  // Code point starts, so a cut never splits a surrogate pair.
  const cuts: number[] = [];
  for (let at = 0; at < text.length; at += (text.codePointAt(at) ?? 0) > 0xffff ? 2 : 1) cuts.push(at);
  const shortened = (count: number) => `${text.slice(0, cuts[count] ?? text.length).trimEnd()}${ELLIPSIS}`;
  let best = gzipWithin(ELLIPSIS, maxBytes);
  if (!best) throw new Error(`not even "${ELLIPSIS}" fits in ${maxBytes} bytes`);
  // Binary search on the number of code points kept: `low` fits, `high` does not.
  let low = 0;
  let high = cuts.length;
  while (high - low > 1) {
    const mid = (low + high) >>> 1;
    const gzip = gzipWithin(shortened(mid), maxBytes);
    if (gzip) {
      low = mid;
      best = gzip;
    } else high = mid;
  }
  return { gzip: best, shortened: true };
}

/** The fields as sent to a recipient with an encryption key, and what was left out or shortened (for the delivery). */
export interface SealedFields {
  fields: PushoverFields;
  notes: string[];
}

/**
 * Replaces `message`, `title` and `url` by their ciphertext and adds `encrypted=1`; everything else stays as it was.
 * A title is always sent (else the phone would show Pushover's plaintext default, which does not decrypt): the
 * notification's or `appName`. Text too long once encrypted is shortened with "…" (the history keeps it whole); a url
 * is never cut, only left out. `url_title` (100 characters cannot hold a ciphertext) and attachments (Pushover does
 * not encrypt them) are not sent.
 */
export function sealFields(plain: PushoverFields, key: KeyObject, appName: string): SealedFields {
  const { message, title, url, url_title: urlTitle, file, ...clear } = plain;
  const notes: string[] = [];
  const fields: PushoverFields = { ...clear, encrypted: 1 };
  const sealed = (name: 'message' | 'title', text: string) => {
    const { gzip, shortened } = fitGzip(text, maxGzipBytes(ENCRYPTED_LIMITS[name]));
    if (shortened) notes.push(`the ${name} was shortened to fit Pushover's ${ENCRYPTED_LIMITS[name]} characters once encrypted`);
    return sealGzip(gzip, key);
  };
  fields.message = sealed('message', String(message ?? ''));
  fields.title = sealed('title', typeof title === 'string' && title !== '' ? title : appName);
  if (typeof url === 'string' && url !== '') {
    const gzip = gzipWithin(url, maxGzipBytes(ENCRYPTED_LIMITS.url));
    if (gzip) fields.url = sealGzip(gzip, key);
    else notes.push(`the url was left out: encrypted, it is longer than Pushover's ${ENCRYPTED_LIMITS.url} characters`);
  }
  if (urlTitle !== undefined && fields.url !== undefined) notes.push('the url title was not sent: it cannot be encrypted within its 100 characters');
  if (file !== undefined) notes.push('the attachment was not sent: Pushover does not encrypt attachments');
  return { fields, notes };
}

/** `sealFields`, or (never sending in clear) a DeliveryError that says why it could not be encrypted. */
export function assertSealed(plain: PushoverFields, key: KeyObject, appName: string, recipient: string): SealedFields {
  try {
    return sealFields(plain, key, appName);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new DeliveryError(`Not sent: the message could not be encrypted for recipient "${recipient}": ${reason}`, false);
  }
}
