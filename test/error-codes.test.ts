import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_TABLE } from '../packages/common/src/errors.js';

/** Every TypeScript source file under the given folders. */
function sources(...dirs: string[]): string[] {
  return dirs.flatMap((dir) =>
    readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
      .map((entry) => join(entry.parentPath, entry.name)),
  );
}

describe('error codes', () => {
  it('has no code that nothing raises: each appears in source outside the table', () => {
    const files = sources('packages/common/src', 'services/device-control/src', 'services/notifications/src').filter((f) => !f.endsWith('errors.ts'));
    const text = files.map((file) => readFileSync(file, 'utf8')).join('\n');
    const unused = Object.keys(ERROR_TABLE).filter((code) => !text.includes(`'${code}'`));
    expect(unused).toEqual([]);
  });
});
