// The last section of docs/benchmarks.md: every result file under bench/results/, what it measures and what writes it.

const BENCH = 'npx -y pnpm@10 exec tsx';

/** The records of the fast paths issue 33 put on trial. */
const FAST_PATH_RECORDS = {
  helmet: '[helmet replay](decisions/helmet-replay.md)',
  series: '[inSeries](decisions/in-series-baseline.md)',
  router: '[routes on the app](decisions/routes-on-app.md)',
  stdout: '[turn-batched stdout](decisions/turn-batched-stdout.md)',
  json: '[lean JSON reader](decisions/lean-json-reader.md)',
} as const;

/** File (under bench/results/), what it measures, the command that writes it. */
const RESULT_FILES: readonly [file: string, what: string, command: string][] = [
  ['benchmarks.json', 'Every figure and target of the last `pnpm bench` (the source of this page)', 'npx -y pnpm@10 bench'],
  ['create-throughput.svg', 'Create throughput against stored records, beside the bare Express 5 ceiling', 'npx -y pnpm@10 bench'],
  ['postgres-plans.txt', 'EXPLAIN (ANALYZE, BUFFERS) of the first page and the counts at 1,000,000 rows', 'npx -y pnpm@10 bench'],
  ['dashboard-speed.json', "The inbox's first page in Chromium", 'RECORD=1 npx vitest run test/browser/dashboard-inbox.test.ts'],
  ['dashboard-size.json', "Each dashboard's JavaScript and CSS, gzipped", 'RECORD=1 npx vitest run test/dashboard-size.test.ts'],
  ['bench-side-by-side.md', 'The targets of two commits side by side, with the noise between runs', 'bash bench/side-by-side.sh <old> [new] [rounds]'],
  ['bench-side-by-side.json', 'The same rows as data', 'bash bench/side-by-side.sh <old> [new] [rounds]'],
  ['bench-runs/', 'The benchmarks.json of each side-by-side run', 'bash bench/side-by-side.sh <old> [new] [rounds]'],
  [
    'ab-stage.json',
    'Two built checkouts, one harness: startup and RSS at 100,000 stored, creates at 1,000,000',
    `${BENCH} bench/ab-stage.ts <old> <new> [rounds]`,
  ],
  [
    'restart-million.json',
    'The worst-case restart: a million creates over HTTP, SIGTERM, stop and start times, RSS after start',
    `${BENCH} bench/restart-bench.ts [creates] [runs] [old checkout]`,
  ],
  ['fast-paths.json', 'The lean JSON reader against express.json, alone: CPU per create, ABBA rounds', `${BENCH} bench/fast-paths.ts 20`],
  [
    'fast-paths-trial.json',
    "Issue 33's trial of five fast paths against the plain library, alone (at dd581ef, before four were removed)",
    `${BENCH} bench/fast-paths.ts 30`,
  ],
  ['fast-paths-trial-rerun.json', 'The same for routes on the app and the lean JSON reader, once more', `${BENCH} bench/fast-paths.ts 20`],
  ...(['helmet', 'series', 'router', 'stdout', 'json'] as const).map((name): [string, string, string] => [
    `fast-path-${name}.json`,
    `The service with and without one fast path (${FAST_PATH_RECORDS[name]}): creates and GET /sounds, CPU per request`,
    `${BENCH} bench/ab-stage.ts <with> <without> 6 --workload requests --out <file>`,
  ]),
  [
    'large-creates-lean-reader.json',
    'Resident memory 30 concurrent 7 MB creates add, with and without the lean JSON reader',
    `${BENCH} bench/large-creates.ts --runs 1 --checkout <dir>`,
  ],
  ['metrics-overhead.json', 'Create and GET /devices throughput with METRICS=on against off', `${BENCH} bench/metrics-overhead.ts`],
  ['metrics-overhead-aa.json', 'The same with both sides off: the noise floor', `BENCH_AA=1 ${BENCH} bench/metrics-overhead.ts`],
  ['bridge-overhead.json', 'MQTT bridge and metrics on against both off', `BENCH_BRIDGE=1 ${BENCH} bench/metrics-overhead.ts`],
  ['token-auth-bench.json', 'Create throughput with a scoped token against the API key', `${BENCH} bench/token-auth.ts`],
  ['alerts-bench.json', 'Webhook ingestion against plain creates; an alert storm against a slow Pushover', `${BENCH} bench/alerts.ts`],
  [
    'fallback-storm.json',
    'An alert storm (1,000 alerts) while Pushover answers 429 and the recipient has an ntfy fallback: time until all reached ntfy, none twice',
    'npx tsx --conditions=source bench/fallback-storm.ts',
  ],
  [
    'e2ee-bench.json',
    'Create throughput to a recipient with Pushover end-to-end encryption against one without; the encryption alone per message',
    `${BENCH} bench/e2ee.ts`,
  ],
  ['hook-bomb-bench.json', 'Webhook bodies built to make template rendering explode: time, status, peak RSS', `${BENCH} bench/hook-bomb.ts`],
  ['large-creates.json', 'Resident memory 30 concurrent 7 MB creates add', `${BENCH} bench/large-creates.ts`],
  ['crash-million.json', 'kill -9 during creates and during a fold at 1,000,000 stored: nothing acknowledged lost', `${BENCH} bench/crash-million.ts`],
  ['soak.json', 'Mixed load at 1,000,000 stored for 10 minutes: answers and resident memory', `${BENCH} bench/soak.ts`],
  ['soak-rss.svg', "The soak run's resident memory over time", `${BENCH} bench/soak.ts`],
  [
    'emergency-calls.json',
    'Pushover calls one emergency notification costs until it ends',
    'cd services/notifications && npx tsx --conditions=source bench/emergency-calls.ts',
  ],
  [
    'local-control-bench.json',
    'A LAN toggle against the emulator round trip; cloud messages LAN-first against cloud-only',
    'cd services/device-control && npx tsx --conditions=source bench/lan-first.ts',
  ],
];

export function renderResultsSection(): string {
  return [
    '',
    '## Result files',
    '',
    'Every bench writes its results under [`bench/results/`](../bench/results/); the records in [decisions](decisions/) cite them.',
    '',
    '| File | What it measures | Command that writes it |',
    '| --- | --- | --- |',
    ...RESULT_FILES.map(([file, what, command]) => `| [${file}](../bench/results/${file}) | ${what} | \`${command}\` |`),
    '',
  ].join('\n');
}
