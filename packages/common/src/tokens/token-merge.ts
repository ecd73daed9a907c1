import type { StoredToken } from './token-store.js';

/**
 * The tokens to keep when this process saves `mine` after starting from `base` (what it last read or wrote) while
 * another process sharing the file wrote `theirs` meanwhile: a three-way merge, token by token and field by field.
 * A token either side created is kept; one either side revoked stays revoked (never revived by the side that still
 * had it); a field this side changed is this side's, the others are theirs (a rotation elsewhere survives a last-use
 * write here); the last use is the later of the two.
 */
export function mergeTokens(base: readonly StoredToken[], mine: readonly StoredToken[], theirs: readonly StoredToken[]): StoredToken[] {
  const before = new Map(base.map((t) => [t.id, t]));
  const mineById = new Map(mine.map((t) => [t.id, t]));
  const kept: StoredToken[] = [];
  for (const their of theirs) {
    const my = mineById.get(their.id);
    const was = before.get(their.id);
    if (my === undefined) {
      // Gone here but known before: revoked here. Unknown here: created there.
      if (was === undefined) kept.push(their);
      continue;
    }
    kept.push(was === undefined ? my : mergeFields(was, my, their));
  }
  const inTheirs = new Set(theirs.map((t) => t.id));
  // Known before and gone from theirs: revoked there. Never known: created here.
  for (const my of mine) if (!inTheirs.has(my.id) && !before.has(my.id)) kept.push(my);
  return kept;
}

function mergeFields(was: StoredToken, my: StoredToken, their: StoredToken): StoredToken {
  const merged: Record<string, unknown> = { ...their };
  const fields = new Set([...Object.keys(my), ...Object.keys(was)]);
  for (const field of fields) {
    const mine = (my as Record<string, unknown>)[field];
    if (JSON.stringify(mine) !== JSON.stringify((was as Record<string, unknown>)[field])) merged[field] = mine;
  }
  merged.lastUsedAt = later(my.lastUsedAt, their.lastUsedAt);
  return merged as StoredToken;
}

function later(a: string | null, b: string | null): string | null {
  if (a === null || b === null) return a ?? b;
  return Date.parse(a) >= Date.parse(b) ? a : b;
}
