import type { LoadResult } from './load.js';
import type { Child } from './processes.js';
import type { Compared, RunSettings } from './results.js';

/** What a phase needs from the run: settings, where problems go, how to report progress. */
export interface PhaseContext {
  settings: RunSettings;
  problems: string[];
  /** A measurement that could not be made (a child did not start, crashed, answered wrongly). */
  fail: (what: string, error: unknown) => void;
  log: (line: string) => void;
}

/** One line per run, and a problem for every non-2xx answer or connection error. */
export function describeRun(ctx: PhaseContext, label: string, run: LoadResult): void {
  const cpu = run.serverCpuUsPerRequest === undefined ? '' : `  server CPU ${run.serverCpuUsPerRequest.toFixed(0)} µs/req`;
  ctx.log(`${label.padEnd(44)} ${run.rps.toFixed(0).padStart(6)} req/s  p50 ${run.p50Ms} ms  p99 ${run.p99Ms} ms${cpu}`);
  if (run.non2xx > 0) ctx.problems.push(`${label}: ${run.non2xx} of ${run.requests} answers were not 2xx (status counts ${JSON.stringify(run.statusCodes)})`);
  if (run.errors > 0) ctx.problems.push(`${label}: ${run.errors} connection errors (${run.timeouts} timeouts)`);
}

export function assertAlive(child: Child, label: string): void {
  if (child.exited !== undefined) throw new Error(`${child.name} exited during ${label} (code ${child.exited.code}, signal ${child.exited.signal})`);
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

/**
 * Service runs against the ceiling runs made around them: the throughput ratio (what the targets are stated in)
 * and, for reading a busy machine, the ratio of server CPU per request.
 */
export function compare(services: LoadResult[], ceilings: LoadResult[]): Compared {
  const ceilingRps = mean(ceilings.map((c) => c.rps));
  const serviceRps = mean(services.map((s) => s.rps));
  const cpu = (runs: LoadResult[]) => {
    const values = runs.map((r) => r.serverCpuUsPerRequest);
    return values.every((v) => v !== undefined) ? mean(values as number[]) : undefined;
  };
  const ceilingCpu = cpu(ceilings);
  const serviceCpu = cpu(services);
  return {
    service: services[0]!,
    ...(services.length > 1 ? { serviceRounds: services } : {}),
    ceilingRps,
    serviceRps,
    ratio: serviceRps / ceilingRps,
    ...(ceilingCpu !== undefined && serviceCpu !== undefined ? { cpuRatio: ceilingCpu / serviceCpu } : {}),
  };
}
