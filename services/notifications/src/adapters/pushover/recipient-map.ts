import type { KeyObject } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import { parseFallbackList, type FallbackSpec } from '../fallback/fallback-target.js';
import { isEncryptionKey, toEncryptionKey } from './field-cipher.js';

/** Where one recipient's pushes go: a Pushover user or group key, optionally only to some of its devices. */
export interface RecipientTarget {
  key: string;
  devices: string[];
  /** The key set in the recipient's Pushover apps: their messages are sent end-to-end encrypted. */
  encryptionKey?: KeyObject;
  /** Where the recipient's notifications also go when Pushover cannot deliver them (ntfy, mail). */
  fallback?: FallbackSpec[];
}

/** The recipient map as configured: names to targets, and what to do with a name that is not in it. */
export interface RecipientMap {
  recipients: Map<string, RecipientTarget>;
  unmapped: 'default' | 'refuse';
}

/** The alias of PROVIDER_USER_KEY in records and /health. */
export const DEFAULT_ALIAS = 'default';

const KEY = /^[A-Za-z0-9]{30}$/;
const DEVICE = /^[A-Za-z0-9_-]{1,25}$/;

/** A problem in the recipient map; its text names the recipient and the source, never a key. */
export class RecipientMapError extends Error {
  override name = 'RecipientMapError';
}

function target(source: string, name: string, key: unknown, devices: unknown): RecipientTarget {
  if (name === DEFAULT_ALIAS) throw new RecipientMapError(`${source}: the name "${DEFAULT_ALIAS}" is kept for PROVIDER_USER_KEY; choose another`);
  if (name.length === 0 || name.length > 256) throw new RecipientMapError(`${source}: a recipient name must have 1 to 256 characters`);
  if (typeof key !== 'string' || !KEY.test(key.trim())) {
    throw new RecipientMapError(`${source}: the key of recipient "${name}" must be a Pushover user or group key (30 letters and digits)`);
  }
  const list = devices === undefined ? [] : Array.isArray(devices) ? devices : String(devices).split(',');
  const names = list.map((d) => String(d).trim()).filter((d) => d !== '');
  const bad = names.find((d) => !DEVICE.test(d));
  if (bad !== undefined) throw new RecipientMapError(`${source}: recipient "${name}" has an invalid device name "${bad}" (up to 25 letters, digits, _ or -)`);
  return { key: key.trim(), devices: names };
}

/** The recipient's encryption key; a malformed or empty one is refused naming the recipient, never showing the key. */
function encryptionKeyOf(source: string, name: string, value: unknown): KeyObject | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !isEncryptionKey(value.trim())) {
    throw new RecipientMapError(`${source}: the encryptionKey of recipient "${name}" must be 64 hexadecimal characters (the key set in their Pushover app)`);
  }
  return toEncryptionKey(value.trim());
}

/** The recipient's fallback targets; a malformed one is refused naming the recipient, never showing a token. */
function fallbackOf(source: string, name: string, value: unknown): FallbackSpec[] | undefined {
  if (value === undefined || value === null) return undefined;
  try {
    return parseFallbackList(value);
  } catch (err) {
    throw new RecipientMapError(`${source}: the fallback of recipient "${name}" is not valid: ${(err as Error).message}`);
  }
}

// A misspelt encryptionKey would silently send in clear: a setting that looks like one is refused.
const ENCRYPTION_LOOKALIKE = /encrypt|e2ee|cipher/i;

function assertNoLookalike(source: string, name: string, entry: Record<string, unknown>): void {
  const lookalike = Object.keys(entry).find((k) => k !== 'encryptionKey' && ENCRYPTION_LOOKALIKE.test(k));
  if (lookalike !== undefined) throw new RecipientMapError(`${source}: recipient "${name}" has an unknown setting ${lookalike} (did you mean encryptionKey?)`);
}

/** `alice=<key>:iphone,ipad;bob=<key>` (the RECIPIENTS variable). */
export function parseRecipientsVariable(text: string): Map<string, RecipientTarget> {
  const map = new Map<string, RecipientTarget>();
  for (const part of text
    .split(';')
    .map((p) => p.trim())
    .filter((p) => p !== '')) {
    const at = part.indexOf('=');
    if (at <= 0) throw new RecipientMapError('RECIPIENTS: write each recipient as name=key or name=key:device,device, separated by ;');
    const name = part.slice(0, at).trim();
    const [key, devices] = part.slice(at + 1).split(':', 2);
    if (map.has(name)) throw new RecipientMapError(`RECIPIENTS: recipient "${name}" is listed twice`);
    map.set(name, target('RECIPIENTS', name, key, devices));
  }
  return map;
}

/**
 * The YAML file: `recipients:` mapping each name to a key, or to `{ key, devices: [..], encryptionKey }`; optional
 * `unmapped: default | refuse`.
 */
export function parseRecipientsFile(text: string, source: string): { recipients: Map<string, RecipientTarget>; unmapped?: 'default' | 'refuse' } {
  // Merge keys, timestamps, and refusing unknown tags keep the reading the file always had (YAML 1.1 leftovers).
  const document = parseDocument(text, { merge: true, customTags: ['timestamp'] });
  const problem = document.errors[0] ?? document.warnings[0];
  if (problem) throw new RecipientMapError(`${source} is not valid YAML: ${problem.message.split('\n')[0]!.replace(/:$/, '')}`);
  const doc: unknown = document.toJS();
  if (doc === undefined || doc === null) return { recipients: new Map() };
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new RecipientMapError(`${source}: expected a mapping with "recipients:"`);
  const { recipients = {}, unmapped, ...rest } = doc as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) throw new RecipientMapError(`${source}: unknown setting ${unknown.join(', ')} (known: recipients, unmapped)`);
  if (unmapped !== undefined && unmapped !== 'default' && unmapped !== 'refuse') throw new RecipientMapError(`${source}: unmapped must be default or refuse`);
  if (typeof recipients !== 'object' || recipients === null || Array.isArray(recipients)) {
    throw new RecipientMapError(`${source}: recipients must map each name to a key or to { key, devices }`);
  }
  const map = new Map<string, RecipientTarget>();
  for (const [name, value] of Object.entries(recipients)) {
    const entry: Record<string, unknown> = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : { key: value };
    assertNoLookalike(source, name, entry);
    const found = target(source, name, entry.key, entry.devices);
    const encryptionKey = encryptionKeyOf(source, name, entry.encryptionKey);
    const fallback = fallbackOf(source, name, entry.fallback);
    map.set(name, { ...found, ...(encryptionKey ? { encryptionKey } : {}), ...(fallback ? { fallback } : {}) });
  }
  return unmapped === undefined ? { recipients: map } : { recipients: map, unmapped };
}

/** The map from the file (when it exists) merged with the variable (which wins per name). */
export function loadRecipientMap(settings: { file: string; variable?: string | undefined; unmapped?: 'default' | 'refuse' | undefined }): RecipientMap {
  const fromFile = existsSync(settings.file)
    ? parseRecipientsFile(readFileSync(settings.file, 'utf8'), settings.file)
    : { recipients: new Map<string, RecipientTarget>() };
  const fromVariable = settings.variable ? parseRecipientsVariable(settings.variable) : new Map<string, RecipientTarget>();
  for (const name of fromVariable.keys()) {
    // The variable has no encryption key: letting it win would send that recipient's messages in clear.
    if (fromFile.recipients.get(name)?.encryptionKey) {
      throw new RecipientMapError(`RECIPIENTS: recipient "${name}" has an encryptionKey in ${settings.file}; set it in one place, the file`);
    }
  }
  // The variable has no fallback: the file's stays with the name.
  for (const [name, target] of fromVariable) {
    const fallback = fromFile.recipients.get(name)?.fallback;
    if (fallback) fromVariable.set(name, { ...target, fallback });
  }
  const recipients = new Map([...fromFile.recipients, ...fromVariable]);
  return { recipients, unmapped: settings.unmapped ?? fromFile.unmapped ?? 'default' };
}
