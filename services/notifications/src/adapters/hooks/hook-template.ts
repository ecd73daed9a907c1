import { readFileSync } from 'node:fs';
import { z } from '@homeops/common/core';
import Mustache from 'mustache';
import { parse as parseYaml } from 'yaml';
import type { HookQuery, HookTemplates, RenderedAlert } from '../../domain/alert-hooks.js';
import { BUILT_IN_TEMPLATES } from './built-in-templates.js';
import { renderHook, TEXT_FIELDS } from './render-hook.js';

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
    /**
     * Who else a priority-2 alert goes to while nobody acknowledges it (POST /notifications' `escalate`): fixed steps,
     * or `from` a path of the alert holding them (checked as the create body is).
     */
    escalate: z
      .union([
        z
          .array(z.object({ recipient: z.string().min(1).max(256), afterSeconds: z.number().int().min(60) }).strict())
          .min(1)
          .max(5),
        z.object({ from: z.string().min(1) }).strict(),
      ])
      .optional(),
  })
  .strict();
export type HookTemplate = z.infer<typeof HookTemplateSchema>;

const TemplateFileSchema = z.object({ templates: z.record(z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/), HookTemplateSchema) }).strict();

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
