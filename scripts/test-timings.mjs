// Writes test/timings.json, the seconds each test file took in the last `vitest run` here, which vitest.sequencer.ts
// reads to start the longest files first on a fresh clone. Run after a whole `pnpm test` on a 2-core machine.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { URL } from 'node:url';

const cacheDir = new URL('../node_modules/.vite/vitest/', import.meta.url);
const [hash] = readdirSync(cacheDir);
const { results } = JSON.parse(readFileSync(join(cacheDir.pathname, hash, 'results.json'), 'utf8'));
const seconds = Object.fromEntries(
  results
    .filter(([, result]) => result.duration > 0)
    .map(([key, result]) => [key, Math.round(result.duration / 100) / 10])
    .sort(([a], [b]) => (a < b ? -1 : 1)),
);
writeFileSync(new URL('../test/timings.json', import.meta.url), `${JSON.stringify(seconds, null, 2)}\n`);
console.log(`test/timings.json: ${Object.keys(seconds).length} files`);
