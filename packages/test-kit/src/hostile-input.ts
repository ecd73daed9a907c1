import fc from 'fast-check';
import { percentEncodeBytes } from './raw-http.js';

// Printable ASCII that neither ends the request line nor splits the segment goes raw; the rest is percent-encoded
// (Node's HTTP parser itself refuses raw non-ASCII bytes).
const rawSafe = (s: string) => s.length > 0 && /^[\x21-\x7e]+$/.test(s) && !/[?#/%]/.test(s);
const encodeUtf8 = (s: string) => percentEncodeBytes(Buffer.from(s, 'utf8'));

/** Path segments that have broken routers and decoders: traversal, bad and overlong escapes, NUL, surrogates, BOM, prototype keys, odd numbers. */
const HOSTILE_SEGMENTS = [
  '..',
  '.',
  '%2e%2e',
  '..%2f..%2fetc%2fpasswd',
  '%2f',
  '%2F%2F',
  '%00',
  'a%00b',
  '%',
  '%zz',
  '%E0%A4%A',
  '%C0%AF',
  '%ff%fe',
  '%u002e',
  '~',
  '%20',
  '+',
  "'",
  '"',
  '%3Cscript%3E',
  '$%7Bx%7D',
  '*',
  'null',
  '__proto__',
  'constructor',
  'prototype',
  '-1',
  '0',
  '00',
  '1e3',
  '999999',
  '9999999',
  '0x1',
  '1.5',
  ' 1',
  '%F0%9F%92%A9',
  '%ED%A0%80',
  '%EF%BB%BF',
];

/** One path segment as an attacker would send it, plus the service's own words (ids, route names) to hit real handlers. */
export function hostilePathSegment(serviceWords: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(...HOSTILE_SEGMENTS, ...serviceWords),
    fc.uint8Array({ minLength: 1, maxLength: 40 }).map(percentEncodeBytes),
    fc.string({ minLength: 1, maxLength: 30 }).filter(rawSafe),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }).map(encodeUtf8),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }).map(encodeUtf8),
    fc.integer({ min: 60, max: 4000 }).map((n) => 'a'.repeat(n)),
    fc.integer({ min: 60, max: 1000 }).map((n) => encodeURIComponent('é'.repeat(n))),
    fc.integer({ min: -5, max: 10_000_000 }).map(String),
    fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/),
  );
}

/** A query string (`?k=v&…`, or empty) of hostile keys and values, with the service's own parameter names among the keys. */
export function hostileQuery(serviceKeys: readonly string[]): fc.Arbitrary<string> {
  const key = fc.oneof(fc.constantFrom(...serviceKeys, '__proto__', 'constructor', 'a[b]', 'a.b', '', '%00'), fc.stringMatching(/^[a-z]{1,8}$/));
  const value = fc.oneof(
    fc.constantFrom('true', 'false', '1', '0', '-1', '501', '1e3', 'NaN', '', '%', '%zz', '%00', 'a'.repeat(5000), '[]', '{}'),
    fc.uint8Array({ maxLength: 30 }).map(percentEncodeBytes),
    fc.string({ maxLength: 20 }).map((s) => encodeURIComponent(s.replace(/[\uD800-\uDFFF]/g, ''))),
  );
  return fc.array(fc.tuple(key, value), { maxLength: 6 }).map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`));
}

/** Any JSON value a field might be given instead of the right one. */
export const anyJsonField: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(-1, 0, 1, 3, 2 ** 31, 2 ** 53, -0, 1.5, '0', 'true', 'on'),
  fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 5 })), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.oneof(fc.integer(), fc.string({ maxLength: 5 })), { maxKeys: 3 }),
);

/** A request body: none, empty, any JSON, the service's own shape with hostile fields, cut JSON, random bytes, known traps. */
export function hostileBody(serviceShaped: fc.Arbitrary<string>, serviceTraps: readonly string[]): fc.Arbitrary<string | Buffer | undefined> {
  return fc.oneof(
    fc.constant(undefined),
    fc.constant(''),
    fc.json({ maxDepth: 3 }),
    serviceShaped,
    fc.json({ maxDepth: 2 }).map((s) => s.slice(0, Math.max(0, s.length - 1))),
    fc.uint8Array({ maxLength: 2048 }).map((b) => Buffer.from(b)),
    fc.constantFrom(
      '{"a":1e999999}',
      '['.repeat(5000),
      '\uFEFF{}',
      'null',
      '"x"',
      '[]',
      '{"__proto__":{"x":1}}',
      '{"constructor":{"prototype":{"x":1}}}',
      ...serviceTraps,
    ),
  );
}

/** Content-Type headers that are missing, wrong, malformed or oddly cased. */
export const hostileContentType: fc.Arbitrary<string | undefined> = fc.constantFrom(
  undefined,
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/json; charset=bogus',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'multipart/form-data; boundary=xyz',
  'multipart/form-data; boundary=',
  'application/xml',
  '',
  ';;;',
  'application/*',
  'APPLICATION/JSON',
);
