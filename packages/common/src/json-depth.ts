import { AppError } from './errors.js';

/** How deeply a JSON body may nest objects and arrays; no request of either service needs more than a few levels. */
export const MAX_JSON_DEPTH = 32;

/**
 * Throws JSON_TOO_DEEP when a parsed body nests deeper than `limit`. Iterative, so a body nested 60,000 deep costs a
 * loop, not the stack; it stops at the first value past the limit.
 */
export function assertJsonDepth(value: unknown, limit = MAX_JSON_DEPTH): void {
  const stack: Array<[value: unknown, depth: number]> = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth >= limit) {
      throw new AppError('JSON_TOO_DEEP', `JSON nested deeper than ${limit} levels`, {
        solution: `Send JSON nested at most ${limit} levels deep (objects and arrays)`,
      });
    }
    for (const inner of Object.values(current)) stack.push([inner, depth + 1]);
  }
}
