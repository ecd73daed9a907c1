import { Agent, request } from 'node:http';
import autocannon from 'autocannon';
import { readCpuMs } from './processes.js';

/** One HTTP request as the load generator sends it. */
export interface LoadRequest {
  port: number;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  /** Sent with every request (e.g. Authorization). */
  headers?: Record<string, string>;
  /** Bodies sent in turn instead of `body` (e.g. alerts with different identities). */
  bodies?: string[];
}

/** Throughput and latency of one fixed-duration run. */
export interface LoadResult {
  connections: number;
  seconds: number;
  /** Successful (2xx) responses per second. */
  rps: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  /** CPU time the server process spent per answered request (µs), and its CPU use in cores, over the measured run. */
  serverCpuUsPerRequest?: number;
  serverCores?: number;
}

function runAutocannon(target: LoadRequest, connections: number, seconds: number): Promise<autocannon.Result> {
  return autocannon({
    url: `http://127.0.0.1:${target.port}${target.path}`,
    method: target.method,
    connections,
    duration: seconds,
    headers: { ...(target.body === undefined && target.bodies === undefined ? {} : { 'content-type': 'application/json' }), ...target.headers },
    ...(target.body === undefined ? {} : { body: target.body }),
    ...(target.bodies === undefined ? {} : { requests: [{ setupRequest: inTurn(target.bodies) }] }),
  });
}

/** An autocannon request hook that sends the bodies one after another, round and round. */
function inTurn(bodies: string[]): (request: autocannon.Request) => autocannon.Request {
  let next = 0;
  return (request) => ({ ...request, body: bodies[next++ % bodies.length]! });
}

/**
 * A short unmeasured warm-up (JIT, caches, connections), then the measured run at the same concurrency.
 * With the server's pid, also its CPU time per request: less sensitive than req/s to other load on the machine.
 */
export async function measureThroughput(
  target: LoadRequest,
  connections: number,
  seconds: number,
  warmupSeconds: number,
  serverPid?: number,
): Promise<LoadResult> {
  if (warmupSeconds > 0) await runAutocannon(target, connections, warmupSeconds);
  const cpuBefore = serverPid === undefined ? undefined : readCpuMs(serverPid);
  const result = await runAutocannon(target, connections, seconds);
  const cpuAfter = serverPid === undefined ? undefined : readCpuMs(serverPid);
  const statusCodes: Record<string, number> = {};
  for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = stats.count ?? 0;
  const ok = result.requests.total - result.non2xx;
  return {
    connections,
    seconds: result.duration,
    rps: ok / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes,
    ...(cpuBefore !== undefined && cpuAfter !== undefined && result.requests.total > 0
      ? { serverCpuUsPerRequest: ((cpuAfter - cpuBefore) * 1000) / result.requests.total, serverCores: (cpuAfter - cpuBefore) / 1000 / result.duration }
      : {}),
  };
}

const REQUEST_TIMEOUT_MS = 10_000;

/** Latency of one request at a time over one keep-alive connection, timed to the microsecond. */
export interface LatencyResult {
  samples: number;
  p50Ms: number;
  p99Ms: number;
  failures: number;
}

function timedGet(agent: Agent, port: number, path: string): Promise<{ status: number; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request({ host: '127.0.0.1', port, path, agent, timeout: REQUEST_TIMEOUT_MS }, (res) => {
      res.on('data', () => undefined);
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${path} took longer than ${REQUEST_TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end();
  });
}

/** Percentile by nearest rank over sorted values. */
export function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** Sequential GETs for `seconds` (after `warmup` unrecorded ones); only 2xx answers are timed. */
export async function measureLatency(port: number, path: string, seconds: number, warmup = 200): Promise<LatencyResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    for (let i = 0; i < warmup; i++) await timedGet(agent, port, path);
    const times: number[] = [];
    let failures = 0;
    const deadline = performance.now() + seconds * 1000;
    while (performance.now() < deadline) {
      const { status, ms } = await timedGet(agent, port, path);
      if (status >= 200 && status < 300) times.push(ms);
      else failures++;
    }
    times.sort((a, b) => a - b);
    return { samples: times.length, p50Ms: percentile(times, 0.5), p99Ms: percentile(times, 0.99), failures };
  } finally {
    agent.destroy();
  }
}
