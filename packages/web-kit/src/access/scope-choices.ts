import type { Grant, Scope } from '@homeops/common';

/** The limits a grant can carry. */
export type LimitField = 'devices' | 'families' | 'exceptFamilies' | 'recipients';

/** One limit of a scope as the create form offers it: names to tick, taken from the service's own lists. */
export interface LimitChoice {
  field: LimitField;
  text: string;
  options: ReadonlyArray<{ value: string; text: string; hint?: string }>;
  /** Whether names not in the options may be typed (a recipient with no history yet). */
  other?: boolean;
}

/** One scope of this service as the create form offers it, with what it allows and the limits it takes. */
export interface ScopeChoice {
  scope: Scope;
  text: string;
  limits?: LimitChoice[];
}

const LIMIT_WORDS: Record<LimitField, string> = { devices: 'only', families: 'only', exceptFamilies: 'never', recipients: 'only' };

/** A grant as one line: "devices:control (only Desk Lamp; never garageDoor)", with the options' names for the values. */
export function describeGrant(grant: Grant, choices: readonly ScopeChoice[]): string {
  const limits = choices.find((c) => c.scope === grant.scope)?.limits ?? [];
  const nameOf = (field: LimitField, value: string) => limits.find((l) => l.field === field)?.options.find((o) => o.value === value)?.text ?? value;
  const parts = (['devices', 'families', 'exceptFamilies', 'recipients'] as const)
    .filter((field) => grant[field] !== undefined)
    .map((field) => `${LIMIT_WORDS[field]} ${grant[field]!.map((v) => nameOf(field, v)).join(', ')}`);
  return parts.length > 0 ? `${grant.scope} (${parts.join('; ')})` : grant.scope;
}

/** The grants a create form's fields ask for: each ticked scope with the limits that name something. */
export function grantsOf(data: FormData, choices: readonly ScopeChoice[]): Grant[] {
  const ticked = data.getAll('scope');
  return choices
    .filter((choice) => ticked.includes(choice.scope))
    .map((choice) => {
      const grant: Grant = { scope: choice.scope };
      for (const limit of choice.limits ?? []) {
        const name = `${choice.scope} ${limit.field}`;
        const typed = String(data.get(`${name} other`) ?? '').split(',');
        const names = [...new Set([...data.getAll(name).map(String), ...typed].map((n) => n.trim()).filter((n) => n !== ''))];
        if (names.length > 0) grant[limit.field] = names;
      }
      return grant;
    });
}
