import type { BenchResults } from './results.js';

/** One target from the service issues, checked against what the run measured. */
export interface TargetCheck {
  source: string;
  target: string;
  /** Measured value in `unit`, or undefined when it was not measured. */
  measured: number | undefined;
  unit: '%' | 'ms' | 'MB';
  limit: number;
  comparison: '>=' | '<';
  status: 'met' | 'missed' | 'not measured';
  /** How the number was obtained, in a few words. */
  basis: string;
}

function check(spec: Omit<TargetCheck, 'status'>): TargetCheck {
  const { measured, limit, comparison } = spec;
  let status: TargetCheck['status'] = 'not measured';
  if (measured !== undefined && Number.isFinite(measured)) {
    status = (comparison === '>=' ? measured >= limit : measured < limit) ? 'met' : 'missed';
  }
  return { ...spec, status };
}

function describeMemoryBasis(results: BenchResults): string {
  const after = results.notifications.memoryAt100k?.afterLoadMb;
  const underLoad = after === undefined ? '' : `; ${after.toFixed(0)} MB after the list and create runs`;
  return `VmRSS once /health answers${underLoad}`;
}

const percent = (ratio: number | undefined) => (ratio === undefined ? undefined : ratio * 100);

/** Create throughput with `stored` notifications kept, as a share of bare Express 5's. */
function createThroughput(results: BenchResults, source: string, stored: number, limit: number, suffix = ''): TargetCheck {
  return check({
    source,
    target: `create throughput with ${stored.toLocaleString('en-US')} stored vs bare Express 5${suffix}`,
    measured: percent(results.notifications.stages.find((s) => s.stored === stored)?.create.ratio),
    unit: '%',
    limit,
    comparison: '>=',
    basis: `req/s ratio, ${results.settings.connections} connections`,
  });
}

/** Issue 14: the history at 1,000,000 notifications. */
function millionTargets(results: BenchResults): TargetCheck[] {
  const m = results.notifications.atMillion;
  const at = (target: string, measured: number | undefined, unit: TargetCheck['unit'], limit: number, comparison: TargetCheck['comparison'], basis: string) =>
    check({ source: 'issue 14', target, measured, unit, limit, comparison, basis });
  return [
    at(
      'live heap + external after GC at 1,000,000 stored',
      m?.liveHeapMb,
      'MB',
      350,
      '<',
      'heapUsed + external after two full GCs (bench memory probe), once started',
    ),
    at('peak resident memory during the list and create runs at 1,000,000', m?.peakDuringRunsMb, 'MB', 800, '<', 'VmHWM, reset after startup'),
    at(
      'resident memory once started at 1,000,000',
      m?.afterStartMb,
      'MB',
      500,
      '<',
      `VmRSS once /health answers; peak while loading ${m === undefined ? '–' : m.startupPeakMb.toFixed(0)} MB`,
    ),
    at('startup with 1,000,000 stored', m?.startupMs, 'ms', 6_000, '<', 'spawn to first 200 from /health'),
    at('stop on SIGTERM with 1,000,000 stored, after the create runs', m?.stopMs, 'ms', 5_000, '<', `SIGTERM to exit (code ${m?.stopCode ?? '–'})`),
    at("first page of a recipient's list with 1,000,000 stored, p50", m?.listP50Ms, 'ms', 2, '<', 'one request at a time, keep-alive'),
    createThroughput(results, 'issue 14', 1_000_000, 75),
    createThroughput(results, 'issue 14', 10_000, 80, ', kept'),
    createThroughput(results, 'issue 14', 100_000, 80, ', kept'),
  ];
}

/** Issue 33: the worst-case restart, a million creates over HTTP then SIGTERM. */
function restartTargets(results: BenchResults): TargetCheck[] {
  const r = results.notifications.restart;
  const left = r === undefined ? '' : `; left ${r.leftSnapshotMb.toFixed(0)} MB snapshot + ${r.leftJournalMb.toFixed(0)} MB journal`;
  const at = (target: string, measured: number | undefined, unit: TargetCheck['unit'], limit: number, basis: string) =>
    check({ source: 'issue 33', target, measured, unit, limit, comparison: '<', basis });
  return [
    at('stop on SIGTERM after a million creates over HTTP', r?.stopMs, 'ms', 5_000, `SIGTERM to exit (code ${r?.stopCode ?? '–'})${left}`),
    at('start after that stop', r?.listedMs, 'ms', 6_000, 'spawn to /health 200 and then the first page of a recipient'),
    at('resident memory once started after that stop', r?.afterStartMb, 'MB', 500, 'VmRSS once the list answers'),
  ];
}

/** Issue 15: the history in PostgreSQL. */
function postgresTargets(results: BenchResults): TargetCheck[] {
  const p = results.postgres;
  const { connections } = results.settings;
  const create = (stored: number) => percent(p?.stages.find((s) => s.stored === stored)?.create.ratio);
  const at = (target: string, measured: number | undefined, unit: TargetCheck['unit'], limit: number, comparison: TargetCheck['comparison'], basis: string) =>
    check({ source: 'issue 15', target, measured, unit, limit, comparison, basis });
  return [
    at(
      'PostgreSQL: create throughput with 10,000 rows vs bare Express 5, one instance',
      create(10_000),
      '%',
      50,
      '>=',
      `req/s ratio, ${connections} connections`,
    ),
    at(
      'PostgreSQL: create throughput with 1,000,000 rows vs bare Express 5, one instance',
      create(1_000_000),
      '%',
      50,
      '>=',
      `req/s ratio, ${connections} connections`,
    ),
    at("PostgreSQL: first page of a recipient's list with 1,000,000 rows, p50", p?.listP50MsAtMillion, 'ms', 3, '<', 'one request at a time, keep-alive'),
  ];
}

/** Every performance target of issues 3 (device-control) and 4 (notifications), in issue order. */
export function evaluateTargets(results: BenchResults): TargetCheck[] {
  const { connections } = results.settings;
  const toggle = results.deviceControl.toggle;
  return [
    check({
      source: 'issue 3',
      target: 'GET /devices (50 devices) throughput vs bare Express 5',
      measured: percent(results.deviceControl.devices?.ratio),
      unit: '%',
      limit: 80,
      comparison: '>=',
      basis: `req/s ratio, ${connections} connections`,
    }),
    check({
      source: 'issue 3',
      target: "toggle adds to the emulator's round trip (p50)",
      measured: toggle.status === 'measured' ? toggle.addedP50Ms : undefined,
      unit: 'ms',
      limit: 2,
      comparison: '<',
      basis: toggle.status === 'measured' ? 'device-control bench/toggle-latency.ts' : (toggle.reason ?? 'not measured'),
    }),
    createThroughput(results, 'issue 4', 10_000, 80),
    createThroughput(results, 'issue 4', 100_000, 60),
    check({
      source: 'issue 4',
      target: "first page of a recipient's list with 100,000 stored, p50",
      measured: results.notifications.listAt100k?.unloaded.p50Ms,
      unit: 'ms',
      limit: 5,
      comparison: '<',
      basis: 'one request at a time, keep-alive',
    }),
    check({
      source: 'issue 4',
      target: 'startup with 100,000 stored',
      measured: results.notifications.startupAt100kMs,
      unit: 'ms',
      limit: 3_000,
      comparison: '<',
      basis: 'spawn to first 200 from /health',
    }),
    check({
      source: 'issue 4',
      target: 'resident memory at 100,000 stored',
      measured: results.notifications.memoryAt100k?.afterStartMb,
      unit: 'MB',
      limit: 300,
      comparison: '<',
      basis: describeMemoryBasis(results),
    }),
    ...millionTargets(results),
    ...postgresTargets(results),
    ...restartTargets(results),
  ];
}
