import { AppError } from '@homeops/common/core';
import type { HookQuery, RenderedAlert } from '../../domain/alert-hooks.js';
import { boundedView, VIEW_ITEMS_MAX } from './bounded-view.js';
import { BoundedWriter, RENDER_STEPS_MAX } from './bounded-writer.js';
import type { HookTemplate } from './hook-template.js';

/** A template's text fields, each a Mustache template. */
export const TEXT_FIELDS = ['recipient', 'title', 'message', 'url', 'urlTitle', 'sound', 'identity'] as const;
type TextField = (typeof TEXT_FIELDS)[number];

/** The value at a dotted path (`alerts.0.labels.severity`), own properties only. */
export function valueAt(value: unknown, path: string): unknown {
  let at: unknown = value;
  for (const key of path.split('.')) {
    if (at === null || typeof at !== 'object' || !Object.prototype.hasOwnProperty.call(at, key)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

function bad(path: string, message: string): AppError {
  return new AppError('VALIDATION_FAILED', `${path} ${message}`, { details: [{ path, message }] });
}

/**
 * The most each field renders. Title, message and link title are shortened to Pushover's limits rather than refused;
 * a recipient, link or sound is rendered one character past its limit, so that a longer one is refused (400), not cut
 * into another name or a broken link; the identity is only hashed.
 */
const FIELD_MAX: Record<TextField, number> = { recipient: 257, title: 250, message: 1024, url: 513, urlTitle: 100, sound: 65, identity: 1024 };
const SHORTENED: ReadonlySet<TextField> = new Set(['title', 'message', 'urlTitle']);
const shorten = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

// One writer for every call: rendering is synchronous, and its parsed templates are cached.
const writer = new BoundedWriter();

/** A template's text fields rendered with one alert's view (HTML is not escaped: notifications are plain text). */
function renderFields(template: HookTemplate, view: object): Partial<Record<TextField, string>> {
  const fields: Partial<Record<TextField, string>> = {};
  for (const field of TEXT_FIELDS) {
    const text = template[field];
    if (text === undefined) continue;
    const max = FIELD_MAX[field];
    const rendered = writer.renderField(text, view, SHORTENED.has(field) ? max + 1 : max).trim();
    if (rendered) fields[field] = SHORTENED.has(field) ? shorten(rendered, max) : rendered;
  }
  return fields;
}

/**
 * Maps a webhook body through a template to its alerts; a body the template cannot map is a 400 naming what is missing.
 * The template reads a bounded view of the body (boundedView) and renders with a bounded writer, so the work is
 * linear in the body whatever its values are (arrays, objects, prototype names) and however the template nests.
 */
export function renderHook(name: string, template: HookTemplate, body: unknown, query: HookQuery): RenderedAlert[] {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw bad('body', 'must be a JSON object');
  const items = template.each === undefined ? [body] : valueAt(body, template.each);
  if (!Array.isArray(items)) throw bad(`body.${template.each}`, `must be an array of alerts (template "${name}")`);
  if (items.length === 0) throw bad(`body.${template.each}`, `holds no alert (template "${name}")`);
  if (items.length > VIEW_ITEMS_MAX) throw bad(`body.${template.each}`, `holds more than ${VIEW_ITEMS_MAX} alerts; send fewer per call`);
  const root = boundedView(body) as object;
  const itemViews = template.each === undefined ? [root] : (valueAt(root, template.each) as unknown[]);
  writer.startCall();
  return Array.from(itemViews, (item, i) => {
    const at = template.each === undefined ? 'body' : `body.${template.each}.${i}`;
    const isObject = item !== null && typeof item === 'object' && !Array.isArray(item);
    const view = Object.assign(Object.create(null) as object, isObject ? item : {}, { root });
    const fields = renderFields(template, view);
    if (writer.overBudget()) throw bad(at, `takes more than ${RENDER_STEPS_MAX} template steps through template "${name}"; send fewer or smaller alerts`);
    const recipient = query.recipient ?? fields.recipient;
    if (!recipient) throw bad('query.recipient', `is needed: template "${name}" names no recipient`);
    const message = fields.message;
    if (!message) throw bad(at, `gives no message through template "${name}" (its message is ${JSON.stringify(template.message)})`);
    const resolved = template.resolved && template.resolved.values.includes(valueAt(view, template.resolved.from) as string);
    const sound = query.sound ?? fields.sound;
    const priority = query.priority ?? priorityOf(template, view);
    return {
      state: resolved ? 'resolved' : 'firing',
      identity: fields.identity,
      body: {
        recipient,
        title: fields.title ?? name,
        message,
        priority,
        ...(sound ? { sound } : {}),
        ...(fields.url ? { url: fields.url } : {}),
        ...(fields.urlTitle ? { urlTitle: fields.urlTitle } : {}),
        // Only an emergency escalates: the template's lower priorities of the same alert are sent as they are.
        ...(priority === 2 ? escalateOf(template, template.each === undefined ? body : items[i]) : {}),
      },
    };
  });
}

/** The template's steps, or those the alert holds at its `from` path (the raw value: the create schema checks it). */
function escalateOf(template: HookTemplate, item: unknown): { escalate?: unknown } {
  const spec = template.escalate;
  if (spec === undefined) return {};
  if (Array.isArray(spec)) return { escalate: spec.map((step) => ({ ...step })) };
  const value = item !== null && typeof item === 'object' ? valueAt(item, spec.from) : undefined;
  return value === undefined ? {} : { escalate: value };
}

function priorityOf(template: HookTemplate, view: object): number {
  const spec = template.priority;
  if (spec === undefined) return 0;
  if (typeof spec === 'number') return spec;
  const value = valueAt(view, spec.from);
  const key = typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
  // Own keys only: a body's `constructor` or `toString` is not a key of the map.
  const mapped = spec.map ? (key !== undefined && Object.hasOwn(spec.map, key) ? spec.map[key] : undefined) : value;
  const chosen = mapped ?? spec.default ?? 0;
  // A view's array or object has no prototype to convert with: it is no priority.
  const number = typeof chosen === 'number' ? chosen : typeof chosen === 'string' ? Number(chosen) : NaN;
  return Number.isInteger(number) && number >= -2 && number <= 2 ? number : Number(spec.default ?? 0);
}
