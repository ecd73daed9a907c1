import { AppError, assertJsonDepth } from '@homeops/common';

/** Enough to show a client where the damage is; a body with thousands of such strings needs no longer list. */
const MAX_REPORTED_PATHS = 10;

const NOT_UTF8_MESSAGE = 'holds bytes that are not valid UTF-8: send text as UTF-8';

interface Frame {
  path: string;
  keys: string[];
  at: number;
  container: Record<string, unknown>;
}

/**
 * The paths of strings holding U+FFFD, depth first, at most `limit`. Iterative with one frame per open container,
 * so neither nesting nor width can exhaust the stack or build a copy of the body.
 */
function pathsWithReplacement(body: unknown, limit: number): string[] {
  const paths: string[] = [];
  const stack: Frame[] = [];
  const visit = (value: unknown, path: string): void => {
    if (typeof value === 'string') {
      if (value.includes('\uFFFD')) paths.push(path);
    } else if (value !== null && typeof value === 'object') {
      stack.push({ path, keys: Object.keys(value), at: 0, container: value as Record<string, unknown> });
    }
  };
  visit(body, 'body');
  while (stack.length > 0 && paths.length < limit) {
    const frame = stack[stack.length - 1]!;
    if (frame.at === frame.keys.length) {
      stack.pop();
      continue;
    }
    const key = frame.keys[frame.at++]!;
    visit(frame.container[key], `${frame.path}.${key}`);
  }
  return paths;
}

/**
 * A body with bytes that are not UTF-8 is decoded with U+FFFD in their place, which would pass as text and lose what
 * was sent: a 400 naming the fields that hold such a replacement (the whole body when none does).
 */
export function notUtf8Error(body: unknown): AppError {
  const paths = pathsWithReplacement(body, MAX_REPORTED_PATHS);
  const details = (paths.length > 0 ? paths : ['body']).map((path) => ({ path, message: NOT_UTF8_MESSAGE }));
  return new AppError('VALIDATION_FAILED', 'The request body is not valid UTF-8', { details });
}

/** Throws JSON_TOO_DEEP for a body nested past the limit, then VALIDATION_FAILED when its bytes were not UTF-8. */
export function assertCreateBody(body: unknown, utf8: boolean): void {
  assertJsonDepth(body);
  if (!utf8) throw notUtf8Error(body);
}
