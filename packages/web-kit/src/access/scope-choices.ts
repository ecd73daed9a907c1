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

/** The limits a grant can carry that are one number (notifications:send: the highest priority, sends a minute). */
export type NumberLimitField = 'maxPriority' | 'createsPerMinute';

/** One number limit as the create form offers it: empty leaves the scope unlimited there. */
export interface NumberLimitChoice {
  field: NumberLimitField;
  text: string;
  min: number;
  max: number;
}

/** One scope of this service as the create form offers it, with what it allows and the limits it takes. */
export interface ScopeChoice {
  scope: Scope;
  text: string;
  limits?: LimitChoice[];
  numbers?: NumberLimitChoice[];
}

const NUMBER_WORDS: Record<NumberLimitField, (value: number) => string> = {
  maxPriority: (value) => `priority at most ${value}`,
  createsPerMinute: (value) => `${value} a minute`,
};

const LIMIT_WORDS: Record<LimitField, string> = { devices: 'only', families: 'only', exceptFamilies: 'never', recipients: 'only' };

/** A grant as one line: "devices:control (only Desk Lamp; never garageDoor)", with the options' names for the values. */
export function describeGrant(grant: Grant, choices: readonly ScopeChoice[]): string {
  const limits = choices.find((c) => c.scope === grant.scope)?.limits ?? [];
  const nameOf = (field: LimitField, value: string) => limits.find((l) => l.field === field)?.options.find((o) => o.value === value)?.text ?? value;
  const parts = (['devices', 'families', 'exceptFamilies', 'recipients'] as const)
    .filter((field) => grant[field] !== undefined)
    .map((field) => `${LIMIT_WORDS[field]} ${grant[field]!.map((v) => nameOf(field, v)).join(', ')}`);
  for (const field of ['maxPriority', 'createsPerMinute'] as const) {
    if (grant[field] !== undefined) parts.push(NUMBER_WORDS[field](grant[field]));
  }
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
      for (const limit of choice.numbers ?? []) {
        const typed = String(data.get(`${choice.scope} ${limit.field}`) ?? '').trim();
        // The server checks the range and answers which field is wrong.
        if (typed !== '') grant[limit.field] = Number(typed);
      }
      return grant;
    });
}
