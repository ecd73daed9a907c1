import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

/** RECORD=1: the tests rewrite the tracked figures and screenshots they take (docs/development.md, "Recorded files"). */
export const RECORDING = process.env.RECORD === '1';

/**
 * Where a test writes a file the repository tracks (`relative` to its root, e.g. `docs/screenshots/x.png`): that file
 * under RECORD=1, otherwise the same name in a scratch folder, so a plain test run leaves the working tree clean.
 */
export function artifactPath(relative: string): string {
  const path = RECORDING ? join(ROOT, relative) : join(tmpdir(), 'homeops-test-artifacts', relative);
  mkdirSync(dirname(path), { recursive: true });
  return path;
}
