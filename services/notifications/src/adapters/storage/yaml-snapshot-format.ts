import type { NotificationRecord } from '../../domain/notification.js';

/** Version of the snapshot layout, written as `format:` so a future layout can be told apart. */
export const SNAPSHOT_FORMAT = 1;

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;
// js-yaml refuses these characters raw ("non-printable"); JSON.stringify leaves them, so escape them too.
const UNPRINTABLE = /[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/g;

// JSON.stringify costs about 1 µs per call here; most values (ids, dates, plain text) need no escaping at all.
function isPlainPrintable(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x22 || code === 0x5c || code >= 0x7f) return false;
  }
  return true;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A value as YAML: JSON is a subset of YAML 1.2 flow style, so a JSON double-quoted string (plus escapes for
 * the characters YAML refuses raw) reads back identically with js-yaml and needs no plain-scalar guessing.
 */
export function formatScalar(value: unknown): string {
  if (typeof value === 'string' && isPlainPrintable(value)) return `"${value}"`;
  const json = JSON.stringify(value) ?? 'null';
  return json.replace(UNPRINTABLE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

// Records carry a handful of distinct keys: test each once, not once per field of every record.
const keyNames = new Map<string, string>();

function keyName(key: string): string {
  let name = keyNames.get(key);
  if (name === undefined) {
    name = PLAIN_KEY.test(key) ? key : formatScalar(key);
    if (keyNames.size < 1024) keyNames.set(key, name);
  }
  return name;
}

// Loops instead of Object.entries/filter/map: a fold formats every record, so this runs 100k times in a row.
function formatField(key: string, value: unknown, indent: string): string {
  const name = keyName(key);
  if (isPlainObject(value)) {
    const inner = `${indent}  `;
    let fields = '';
    for (const childKey in value) {
      if (!Object.hasOwn(value, childKey)) continue;
      const child = value[childKey];
      if (child !== undefined) fields += inner + formatField(childKey, child, inner);
    }
    if (fields !== '') return `${name}:\n${fields}`;
  }
  return `${name}: ${formatScalar(value)}\n`;
}

/** One record as an item of the `notifications:` block sequence: one field per line, nested mappings indented. */
export function formatRecord(record: NotificationRecord): string {
  let text = '';
  let prefix = '  - ';
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    const value = (record as unknown as Record<string, unknown>)[key];
    if (value === undefined) continue;
    text += prefix + formatField(key, value, '    ');
    prefix = '    ';
  }
  return text;
}

/** The comment block and top-level fields above the `notifications:` list. */
export function formatHeader(journalName: string, generation: number, empty: boolean): string {
  return [
    '# Notification history of @homeops/notifications. Changes newer than this file are in the journal',
    `# ${journalName} beside it and are folded in here in the background.`,
    '# Edit only while the service is stopped; the service refuses to start on a broken file.',
    `format: ${SNAPSHOT_FORMAT}`,
    `generation: ${generation}`,
    empty ? 'notifications: []' : 'notifications:',
    '',
  ].join('\n');
}
