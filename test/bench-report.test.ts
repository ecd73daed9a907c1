import { describe, expect, it } from 'vitest';
import type { LoadResult } from '../bench/load.js';
import { percentile } from '../bench/load.js';
import { compare } from '../bench/phase.js';
import { interleave, renderMarkdown } from '../bench/report-markdown.js';
import type { BenchResults } from '../bench/results.js';
import { evaluateTargets } from '../bench/targets.js';
import { renderThroughputSvg } from '../bench/throughput-svg.js';
import { findAddedP50, lastJsonObject, parseToggleText } from '../bench/toggle-script.js';

function load(rps: number): LoadResult {
  return { connections: 32, seconds: 10, rps, p50Ms: 10, p99Ms: 40, requests: rps * 10, non2xx: 0, errors: 0, timeouts: 0, statusCodes: { '201': rps * 10 } };
}

function results(
  overrides: {
    createRps?: [number, number, number];
    startupMs?: number;
    toggle?: BenchResults['deviceControl']['toggle'];
    million?: Partial<NonNullable<BenchResults['notifications']['atMillion']>>;
  } = {},
): BenchResults {
  const [at0, at10k, at100k] = overrides.createRps ?? [2500, 2450, 2450];
  const ceiling = [load(3000), load(3000)];
  const stage = (stored: number, rps: number) => ({
    stored,
    seedMs: 1,
    startupMs: 100,
    create: { service: load(rps), ceilingRps: 3000, serviceRps: rps, ratio: rps / 3000 },
  });
  return {
    command: 'pnpm bench',
    code: { commit: 'abc1234', uncommittedChanges: false },
    startedAt: '2026-11-22T05:00:00.000Z',
    durationSeconds: 200,
    machine: { cpuModel: 'Test CPU', cores: 2, memoryGb: 4, node: 'v20.20.2', platform: 'linux x64', loadAverageStart: 0.1, loadAverageEnd: 0.2 },
    settings: { connections: 32, seconds: 10, warmupSeconds: 2, latencySeconds: 5 },
    ceilings: { create: ceiling, devices: ceiling, list: { samples: 100, p50Ms: 0.4, p99Ms: 1, failures: 0 } },
    notifications: {
      stages: [stage(0, at0), stage(10_000, at10k), stage(100_000, at100k), stage(1_000_000, 2400)],
      listAt100k: { unloaded: { samples: 100, p50Ms: 0.9, p99Ms: 3, failures: 0 }, loaded: load(2000), bytes: 20_000 },
      startupAt100kMs: overrides.startupMs ?? 2_000,
      memoryAt100k: { afterStartMb: 200, startupPeakMb: 250, afterLoadMb: 260, peakAfterLoadMb: 270 },
      atMillion: {
        startupMs: 2_500,
        afterStartMb: 400,
        startupPeakMb: 600,
        liveHeapMb: 310,
        peakDuringRunsMb: 500,
        listP50Ms: 0.8,
        stopMs: 70,
        stopCode: 0,
        ...overrides.million,
      },
      restart: {
        creates: 1_000_000,
        non2xx: 0,
        createSeconds: 400,
        stopMs: 900,
        stopCode: 0,
        foldedOnStop: false,
        leftSnapshotMb: 150,
        leftJournalMb: 143,
        startupMs: 4_000,
        listedMs: 4_500,
        startCpuMs: 4_200,
        afterStartMb: 300,
        startupPeakMb: 420,
      },
    },
    deviceControl: {
      devices: { service: load(2700), ceilingRps: 3000, serviceRps: 2700, ratio: 0.9, cpuRatio: 0.85, deviceCount: 50, bytes: 15_000 },
      toggle: overrides.toggle ?? { status: 'measured', addedP50Ms: 1.2, command: 'node bench/toggle-latency.ts' },
    },
    postgres: {
      stages: [10_000, 1_000_000].map((stored) => ({
        stored,
        seedMs: 900,
        create: { service: { ...load(1800), serverCpuUsPerRequest: 400 }, ceilingRps: 3000, serviceRps: 1800, ratio: 0.6 },
        transactionsPerCreate: 2,
        databaseCpuUsPerCreate: 250,
      })),
      listP50MsAtMillion: 1.1,
      twoInstances: { rps: 1900, oneInstanceRps: 1800, ratio: 1900 / 1800, non2xx: 0 },
    },
    problems: [],
  };
}

describe('bench targets', () => {
  it('marks every target met when each number is inside its limit', () => {
    const checks = evaluateTargets(results());

    expect(checks).toHaveLength(22);
    expect(checks.map((c) => c.status)).toEqual(Array(22).fill('met'));
  });

  it("marks issue 15's rows missed below half the ceiling or past 3 ms, and not measured without the PostgreSQL phase", () => {
    const res = results();
    res.postgres!.stages[1]!.create.ratio = 0.49;
    res.postgres!.listP50MsAtMillion = 3.2;
    const byTarget = Object.fromEntries(evaluateTargets(res).map((c) => [c.target, c.status]));
    expect(byTarget['PostgreSQL: create throughput with 10,000 rows vs bare Express 5, one instance']).toBe('met');
    expect(byTarget['PostgreSQL: create throughput with 1,000,000 rows vs bare Express 5, one instance']).toBe('missed');
    expect(byTarget["PostgreSQL: first page of a recipient's list with 1,000,000 rows, p50"]).toBe('missed');
    const { postgres: _gone, ...withoutPostgres } = results();
    const none = evaluateTargets(withoutPostgres).filter((c) => c.source === 'issue 15');
    expect(none.map((c) => c.status)).toEqual(Array(3).fill('not measured'));
  });

  it("marks issue 14's rows missed past their limits, and not measured when the stage did not run", () => {
    const missed = Object.fromEntries(evaluateTargets(results({ million: { liveHeapMb: 351, startupMs: 6_000 } })).map((c) => [c.target, c.status]));
    expect(missed['live heap + external after GC at 1,000,000 stored']).toBe('missed');
    expect(missed['startup with 1,000,000 stored']).toBe('missed');
    expect(missed['stop on SIGTERM with 1,000,000 stored, after the create runs']).toBe('met');
    const { atMillion: _gone, ...notifications } = results().notifications;
    const none = evaluateTargets({ ...results(), notifications }).filter((c) => c.source === 'issue 14' && !c.target.startsWith('create'));
    expect(none.map((c) => c.status)).toEqual(Array(6).fill('not measured'));
  });

  it('marks a ratio below its limit and a slow startup as missed, with the measured numbers', () => {
    const checks = evaluateTargets(results({ createRps: [2500, 2300, 1700], startupMs: 3_400 }));

    const byTarget = Object.fromEntries(checks.map((c) => [c.target, c]));
    expect(byTarget['create throughput with 10,000 stored vs bare Express 5']).toMatchObject({ status: 'missed', measured: (2300 / 3000) * 100 });
    expect(byTarget['create throughput with 100,000 stored vs bare Express 5']).toMatchObject({ status: 'missed' });
    expect(byTarget['create throughput with 100,000 stored vs bare Express 5, kept']).toMatchObject({ status: 'missed', source: 'issue 14', limit: 80 });
    expect(byTarget['startup with 100,000 stored']).toMatchObject({ status: 'missed', measured: 3_400 });
    expect(byTarget['resident memory at 100,000 stored']).toMatchObject({
      status: 'met',
      basis: 'VmRSS once /health answers; 260 MB after the list and create runs',
    });
  });

  it('reports a toggle row that did not run as not measured, never as met', () => {
    const checks = evaluateTargets(results({ toggle: { status: 'not measured', reason: 'script missing' } }));

    expect(checks[1]).toMatchObject({ status: 'not measured', measured: undefined, basis: 'script missing' });
  });
});

describe('bench report', () => {
  it('renders a markdown table with every target, its number and its verdict', () => {
    const res = results({ startupMs: 3_400 });

    const markdown = renderMarkdown(res, evaluateTargets(res));

    expect(markdown).toContain('| issue 4 | startup with 100,000 stored | 3400 ms | < 3,000 ms | **MISSED** |');
    expect(markdown).toContain('| Test CPU | 2 | 4.0 GB | v20.20.2 | linux x64 | 0.10 / 0.20 | –; – |');
    expect(markdown).toContain('`pnpm bench`, run 2026-11-22T05:00:00.000Z (200 s) on commit abc1234.');
  });

  it('renders the PostgreSQL section with costs per create and what N instances would carry', () => {
    const res = results();

    const markdown = renderMarkdown(res, evaluateTargets(res));

    expect(markdown).toContain('| 1,000,000 | 900 ms | 1,800 | 10 ms | 40 ms | 400 µs | 250 µs | 2.00 | 0 | **60.0%** |');
    expect(markdown).toContain('**1,900 req/s** against 1,800 for one');
    // 2,500 creates/s per instance (400 µs), 8,000 for the database (250 µs on two cores).
    expect(markdown).toContain("| 2 | 5,000 | the instances' CPU |");
    expect(markdown).toContain("| 4 | 8,000 | the database's CPU (2 cores) |");
  });

  it('leaves the PostgreSQL section out when the phase did not run', () => {
    const { postgres: _gone, ...res } = results();

    expect(renderMarkdown(res, evaluateTargets(res))).not.toContain('## notifications on PostgreSQL');
  });

  it('draws one point per history size and the three reference levels in the SVG', () => {
    const svg = renderThroughputSvg(
      [
        { stored: 0, rps: 2500 },
        { stored: 10_000, rps: 2400 },
        { stored: 100_000, rps: 1800 },
      ],
      3000,
      'create <throughput>',
    );

    expect(svg.match(/<circle /g)).toHaveLength(3);
    expect(svg).toContain('bare Express 5: 3,000');
    expect(svg).toContain('target 60% (100,000)');
    expect(svg).toContain('create &lt;throughput&gt;');
    expect(svg.trim().endsWith('</svg>')).toBe(true);
  });
});

describe('bench helpers', () => {
  it('compares service runs with the mean of the ceiling runs around them, by req/s and by CPU per request', () => {
    const ceiling = (rps: number, cpuUs: number) => ({ ...load(rps), serverCpuUsPerRequest: cpuUs });

    const compared = compare([ceiling(1500, 400)], [ceiling(2800, 200), ceiling(3200, 200)]);

    expect(compared).toMatchObject({ ceilingRps: 3000, serviceRps: 1500, ratio: 0.5, cpuRatio: 0.5 });
  });

  it('lists ceiling and service runs in the order they were made', () => {
    expect(interleave(['c0', 'c1', 'c2'], ['s0', 's1'])).toEqual(['c0', 's0', 'c1', 's1', 'c2']);
  });

  it('takes the nearest-rank percentile of sorted values', () => {
    expect(percentile([1, 2, 3, 4], 0.5)).toBe(2);
    expect(percentile([1, 2, 3, 4], 0.99)).toBe(4);
    expect(percentile([], 0.5)).toBeNaN();
  });

  it("reads the toggle script's added p50 from its JSON line or, failing that, from its summary text", () => {
    const json = lastJsonObject('toggle latency\n{"direct":{"p50Ms":0.5},"added":{"p50Ms":1.5}}\n');
    const text = parseToggleText(
      'emulator MQTT round trip (bare)    p50 0.47 ms   p90 0.76 ms\nPOST /devices/:uuid/toggle         p50 2.55 ms   p90 12.22 ms\nadded by the service (p50 difference): 2.08 ms\n',
    );

    expect(findAddedP50(json)).toBe(1.5);
    expect(text).toEqual({ addedP50Ms: 2.08, roundTripP50Ms: 0.47, serviceP50Ms: 2.55 });
  });
});
