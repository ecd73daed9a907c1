import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface Speed {
  measuredAt: string;
  stored: number;
  runs: number[];
  medianMs: number;
  limitMs: number;
  command: string;
}

interface Sizes {
  limitBytes: number;
  [service: string]: number | { files: Record<string, number>; total: number };
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

/**
 * The dashboards' figures (issue 12), measured by the browser and build tests (test/browser/dashboard-inbox.test.ts,
 * test/dashboard-size.test.ts) into bench/results/dashboard-*.json; appended to docs/benchmarks.md.
 */
export function renderDashboardSection(results: string): string {
  const speedFile = join(results, 'dashboard-speed.json');
  const sizeFile = join(results, 'dashboard-size.json');
  if (!existsSync(speedFile) || !existsSync(sizeFile)) return '';
  const speed = JSON.parse(readFileSync(speedFile, 'utf8')) as Speed;
  const sizes = JSON.parse(readFileSync(sizeFile, 'utf8')) as Sizes;
  const pages = Object.entries(sizes).filter((e): e is [string, { files: Record<string, number>; total: number }] => typeof e[1] === 'object');
  return [
    '',
    '## Dashboards (issue 12)',
    '',
    `Inbox first page with ${speed.stored.toLocaleString('en-US')} stored: the \`inbox-first-page\` mark of the Performance API, from navigation start, ` +
      `in Debian's Chromium opened under a LAN name (\`${speed.command}\`, ${speed.measuredAt}). Five fresh page loads: ` +
      `${speed.runs.map((ms) => `${ms} ms`).join(', ')}; median **${speed.medianMs} ms** (limit ${speed.limitMs} ms: ${speed.medianMs <= speed.limitMs ? '**met**' : '**MISSED**'}).`,
    '',
    '| Page | JavaScript + CSS, gzipped | Limit |',
    '| --- | ---: | ---: |',
    ...pages.map(
      ([page, s]) =>
        `| ${page} | ${kb(s.total)} (${Object.entries(s.files)
          .map(([f, b]) => `${f} ${kb(b)}`)
          .join(', ')}) | ${kb(sizes.limitBytes)} |`,
    ),
    '',
  ].join('\n');
}
