/**
 * Text Pushover can carry: well-formed Unicode (no lone surrogate, which would be lost or refused on the way),
 * no NUL and no noncharacter U+FFFE / U+FFFF.
 */
export function isCleanText(text: string): boolean {
  return !LONE_SURROGATE.test(text) && !text.includes('\u0000') && !text.includes('\uFFFE') && !text.includes('\uFFFF');
}

// A high surrogate not followed by a low one, or a low one not preceded by a high one (no `u` flag: code units).
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

// Control (Cc), format (Cf: bidi overrides, zero-width characters, BOM) and line/paragraph separators.
const INVISIBLE_OR_CONTROL = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;
const EVERY_INVISIBLE_OR_CONTROL = new RegExp(INVISIBLE_OR_CONTROL.source, 'gu');

/** The text without control, bidi, zero-width and line separator characters (which make a name read as another). */
export function withoutInvisible(text: string): string {
  return text.replace(EVERY_INVISIBLE_OR_CONTROL, '');
}

/**
 * A name shown in lists and put in URLs: printable, so two names that look alike are alike, and no dot segment
 * (`.`, `..`), which every URL client rewrites before it is sent.
 */
export function isPrintableName(name: string): boolean {
  return !INVISIBLE_OR_CONTROL.test(name) && name !== '.' && name !== '..';
}

/** Schemes a link in a notification may not use: they run code or carry content instead of pointing somewhere. */
const REFUSED_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:']);

/** What Pushover accepts as `url`: http(s), tel:, sms:, mailto: and app links (`myapp://…`); never a script or data. */
export function isAcceptedUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  return !REFUSED_SCHEMES.has(new URL(value).protocol.toLowerCase());
}
