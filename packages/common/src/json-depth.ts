import { AppError } from './errors.js';

/** How deeply a JSON body may nest objects and arrays; no request of either service needs more than a few levels. */
export const MAX_JSON_DEPTH = 32;

/**
 * Throws JSON_TOO_DEEP when a parsed body nests deeper than `limit`. Iterative, so a body nested 60,000 deep costs a
 * loop, not the stack; it stops at the first value past the limit.
 */
export function assertJsonDepth(value: unknown, limit = MAX_JSON_DEPTH): void {
  if (value === null || typeof value !== 'object') return;
  // Only containers go on the stack: a body of a million numbers costs a loop, not a million entries.
  const stack: Array<[container: object, depth: number]> = [[value, 0]];
  while (stack.length > 0) {
    const [container, depth] = stack.pop()!;
    if (depth >= limit) {
      throw new AppError('JSON_TOO_DEEP', `JSON nested deeper than ${limit} levels`, {
        solution: `Send JSON nested at most ${limit} levels deep (objects and arrays)`,
      });
    }
    const values: unknown[] = Array.isArray(container) ? container : Object.values(container);
    for (const inner of values) if (inner !== null && typeof inner === 'object') stack.push([inner, depth + 1]);
  }
}
