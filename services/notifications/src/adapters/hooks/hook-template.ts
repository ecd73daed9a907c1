import { readFileSync } from 'node:fs';
import { AppError, z } from '@homeops/common/core';
import Mustache from 'mustache';
import { parse as parseYaml } from 'yaml';
import type { HookQuery, HookTemplates, RenderedAlert } from '../../domain/alert-hooks.js';
import { boundedView, VIEW_ITEMS_MAX } from './bounded-view.js';
import { BoundedWriter, RENDER_STEPS_MAX } from './bounded-writer.js';
import { BUILT_IN_TEMPLATES } from './built-in-templates.js';

// A template maps a monitoring tool's JSON to notifications. Its text fields are Mustache templates: logic-less (no
// code, no expressions, no helpers), so a template file can be written by anyone and a body can run nothing.

/** A value read at a dotted path of the body (or of the current alert), with a fallback and an optional mapping. */
const PickSchema = z
  .object({
    from: z.string().min(1),
    /** Values mapped to the result (e.g. severity names to priorities); others give `default`. */
    map: z.record(z.string(), z.union([z.number(), z.string()])).optional(),
    default: z.union([z.number(), z.string()]).optional(),
  })
  .strict();

const TextSchema = z.string().max(2_000);

export const HookTemplateSchema = z
  .object({
    /** Path of an array in the body: each item is one alert (rendered with the item's fields, the body as `root`). */
    each: z.string().min(1).optional(),
    recipient: TextSchema.optional(),
    title: TextSchema,
    message: TextSchema,
    priority: z.union([z.number().int().min(-2).max(2), PickSchema]).optional(),
    url: TextSchema.optional(),
    urlTitle: TextSchema.optional(),
    sound: TextSchema.optional(),
    /** The alert's identity at its source: the same alert firing and resolving renders the same text. */
    identity: TextSchema.optional(),
    /** Which values of which path mean "resolved"; without it every alert fires. */
    resolved: z
      .object({ from: z.string().min(1), values: z.array(z.union([z.string(), z.number(), z.boolean()])).min(1) })
      .strict()
      .optional(),
    /** Send a quiet (priority -1) "Resolved: …" note when an alert resolves (also `?resolvedNote=true`). */
    resolvedNote: z.boolean().optional(),
  })
  .strict();
export type HookTemplate = z.infer<typeof HookTemplateSchema>;

const TemplateFileSchema = z.object({ templates: z.record(z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/), HookTemplateSchema) }).strict();

const TEXT_FIELDS = ['recipient', 'title', 'message', 'url', 'urlTitle', 'sound', 'identity'] as const;
type TextField = (typeof TEXT_FIELDS)[number];

/** Throws when a template's text is not valid Mustache, or names `__proto__`, naming the template and field. */
function assertParses(name: string, template: HookTemplate): void {
  for (const field of TEXT_FIELDS) {
    const text = template[field];
    if (text === undefined) continue;
    let tokens: Mustache.TemplateSpans;
    try {
      tokens = Mustache.parse(text);
    } catch (err) {
      throw new Error(`hook template "${name}": ${field} is not a valid template: ${(err as Error).message}`);
    }
    // Mustache caches a lookup under its name in a plain object: `__proto__` would replace that object's prototype.
    if (namesIn(tokens).some((path) => path.split('.').includes('__proto__'))) {
      throw new Error(`hook template "${name}": ${field} names __proto__, which no body value can be read as`);
    }
  }
}

function namesIn(tokens: Mustache.TemplateSpans): string[] {
  return tokens.flatMap((token) => {
    if (token[0] === 'name' || token[0] === '&') return [token[1]];
    if (token[0] === '#' || token[0] === '^') return [token[1], ...namesIn(token[4] as Mustache.TemplateSpans)];
    return [];
  });
}

/**
 * The built-in templates, plus those of HOOK_TEMPLATES_FILE (YAML or JSON: `templates: { <name>: {…} }`), which may
 * replace a built-in one by name. Checked at start: a bad file stops the service with the template and field named.
 */
export function loadHookTemplates(file: string | undefined): ReadonlyMap<string, HookTemplate> {
  const templates = new Map<string, HookTemplate>(Object.entries(BUILT_IN_TEMPLATES));
  if (file === undefined) return templates;
  let parsed: unknown;
  try {
    parsed = parseYaml(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`HOOK_TEMPLATES_FILE ${file} cannot be read as YAML or JSON: ${(err as Error).message}`);
  }
  const result = TemplateFileSchema.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new Error(`HOOK_TEMPLATES_FILE ${file}: ${issue.path.join('.')} ${issue.message}`);
  }
  for (const [name, template] of Object.entries(result.data.templates)) templates.set(name, template);
  for (const [name, template] of templates) assertParses(name, template);
  return templates;
}

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
    return {
      state: resolved ? 'resolved' : 'firing',
      identity: fields.identity,
      body: {
        recipient,
        title: fields.title ?? name,
        message,
        priority: query.priority ?? priorityOf(template, view),
        ...(sound ? { sound } : {}),
        ...(fields.url ? { url: fields.url } : {}),
        ...(fields.urlTitle ? { urlTitle: fields.urlTitle } : {}),
      },
    };
  });
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
  const number = typeof chosen === 'number' ? chosen : Number(chosen);
  return Number.isInteger(number) && number >= -2 && number <= 2 ? number : Number(spec.default ?? 0);
}

/** The templates of a start (built-in and HOOK_TEMPLATES_FILE's), rendered with Mustache. */
export class MustacheHookTemplates implements HookTemplates {
  constructor(private readonly templates: ReadonlyMap<string, HookTemplate>) {}

  static load(file: string | undefined): MustacheHookTemplates {
    return new MustacheHookTemplates(loadHookTemplates(file));
  }

  names(): string[] {
    return [...this.templates.keys()];
  }

  has(name: string): boolean {
    return this.templates.has(name);
  }

  sendsResolvedNote(name: string): boolean {
    return this.templates.get(name)?.resolvedNote === true;
  }

  render(name: string, body: unknown, query: HookQuery): RenderedAlert[] {
    return renderHook(name, this.templates.get(name)!, body, query);
  }
}
