// Writes docs/benchmarks.md again from bench/results/benchmarks.json (the last `pnpm bench`) and the dashboards' figures,
// without measuring anything: `pnpm bench:render` after the browser tests updated bench/results/dashboard-*.json.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderDashboardSection } from './dashboard-section.js';
import { renderMarkdown } from './report-markdown.js';
import type { BenchResults } from './results.js';
import { renderResultsSection } from './results-section.js';
import { RESULTS, ROOT } from './services.js';
import type { TargetCheck } from './targets.js';

const saved = JSON.parse(readFileSync(join(RESULTS, 'benchmarks.json'), 'utf8')) as BenchResults & { targets: TargetCheck[] };
writeFileSync(join(ROOT, 'docs/benchmarks.md'), renderMarkdown(saved, saved.targets) + renderDashboardSection(RESULTS) + renderResultsSection());
console.log('wrote docs/benchmarks.md');
