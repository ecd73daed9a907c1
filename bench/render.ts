// Writes docs/benchmarks.md again from docs/benchmarks.json (the last `pnpm bench`) and the dashboards' figures,
// without measuring anything: `pnpm bench:render` after the browser tests updated docs/dashboard-*.json.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderDashboardSection } from './dashboard-section.js';
import { renderMarkdown } from './report-markdown.js';
import type { BenchResults } from './results.js';
import { ROOT } from './services.js';
import type { TargetCheck } from './targets.js';

const docs = join(ROOT, 'docs');
const saved = JSON.parse(readFileSync(join(docs, 'benchmarks.json'), 'utf8')) as BenchResults & { targets: TargetCheck[] };
writeFileSync(join(docs, 'benchmarks.md'), renderMarkdown(saved, saved.targets) + renderDashboardSection(docs));
console.log('wrote docs/benchmarks.md');
