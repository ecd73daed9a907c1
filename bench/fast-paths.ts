// The hand-written fast paths that earned their place (issue 33, docs/decisions/), each against the plain library,
// alone and in one process: what it saves per request in CPU time, the two sides alternating in short batches
// (ABBA…) so that load from elsewhere on the machine reaches both alike. The HTTP A/B of the whole service
// (bench/ab-stage.ts --workload requests) gives the share of a request, but on a loaded machine its spread hides a few
// microseconds. The paths issue 33 removed (helmet replay, inSeries, routes on the app, turn-batched stdout) were
// measured by this file at dd581ef: bench/results/fast-paths-trial.json and fast-paths-trial-rerun.json.
// Usage: npx -y pnpm@10 exec tsx bench/fast-paths.ts [rounds, default 10]; writes bench/results/fast-paths.json.
import { writeFileSync } from 'node:fs';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { readLargeJson } from '../services/notifications/src/http/large-json.reader.js';
import { readPlainJson } from '../services/notifications/src/http/plain-json.reader.js';
import { machineOf, median, runBench } from './ab-report.js';
import { CREATE_BODY, RESULTS } from './services.js';

type Request = Parameters<typeof readLargeJson>[0];
type Response = Parameters<typeof readLargeJson>[1];

/** One side of a trial: `run(n)` does the work of n requests. */
type Side = (n: number) => Promise<void>;

interface Trial {
  name: string;
  record: string;
  what: string;
  /** Requests per batch. */
  batch: number;
  fast: Side;
  plain: Side;
}

const cpuUs = (): number => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

async function timeBatch(side: Side, n: number): Promise<number> {
  const before = cpuUs();
  await side(n);
  return (cpuUs() - before) / n;
}

/** A request as Node's HTTP server makes it, on an unconnected socket. */
function incoming(method: string, url: string, headers: Record<string, string>): IncomingMessage {
  const req = new IncomingMessage(new Socket());
  req.method = method;
  req.url = url;
  req.headers = headers;
  return req;
}

function jsonTrial(): Trial {
  const body = Buffer.from(CREATE_BODY);
  const headers = { host: 'localhost', 'content-type': 'application/json', 'content-length': String(body.length) };
  const side =
    (read: (req: Request, res: Response, next: (err?: unknown) => void) => void): Side =>
    async (n) => {
      for (let i = 0; i < n; i++) {
        const req = incoming('POST', '/notifications', headers);
        const res = new ServerResponse(req);
        await new Promise<void>((resolve, reject) => {
          read(req as Request, res as unknown as Response, (err?: unknown) => (err ? reject(err as Error) : resolve()));
          req.push(body);
          req.push(null);
        });
      }
    };
  return {
    name: 'json',
    record: 'lean-json-reader.md',
    what: `A ${body.length}-byte create body read by the lean reader against express.json (readLargeJson), the same checks after both`,
    batch: 2000,
    fast: side((req, _res, next) => readPlainJson(req, next, body.length)),
    plain: side(readLargeJson),
  };
}

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 10);
  const loadStart = loadavg()[0]!;
  const trials = [jsonTrial()];
  const results = [];
  for (const trial of trials) {
    // Warm-up: JIT both sides.
    await trial.fast(trial.batch);
    await trial.plain(trial.batch);
    const fast: number[] = [];
    const plain: number[] = [];
    for (let round = 1; round <= rounds; round++) {
      const order = round % 2 ? [true, false] : [false, true];
      for (const isFast of order) (isFast ? fast : plain).push(await timeBatch(isFast ? trial.fast : trial.plain, trial.batch));
    }
    const r = (x: number) => Math.round(x * 100) / 100;
    const pairs = plain.map((p, i) => p - fast[i]!);
    const result = {
      trial: trial.name,
      record: `docs/decisions/${trial.record}`,
      what: trial.what,
      cpuUsPerRequest: {
        fast: { median: r(median(fast)), min: r(Math.min(...fast)), max: r(Math.max(...fast)) },
        plain: { median: r(median(plain)), min: r(Math.min(...plain)), max: r(Math.max(...plain)) },
      },
      // Plain minus fast within each round: the pairs share the moment's load.
      savedUsPerRequest: { median: r(median(pairs)), min: r(Math.min(...pairs)), max: r(Math.max(...pairs)) },
      samples: { fast: fast.map(r), plain: plain.map(r) },
    };
    console.log(
      `${trial.name}: fast ${result.cpuUsPerRequest.fast.median} µs, plain ${result.cpuUsPerRequest.plain.median} µs, saved ${result.savedUsPerRequest.median} µs`,
    );
    results.push(result);
  }
  const report = {
    startedAt: new Date().toISOString(),
    command: `npx -y pnpm@10 exec tsx bench/fast-paths.ts ${rounds}`,
    machine: machineOf(loadStart),
    settings: { rounds, order: 'ABBA per round pair, CPU time (user + system) of the process per request' },
    results,
  };
  writeFileSync(join(RESULTS, 'fast-paths.json'), `${JSON.stringify(report, null, 2)}\n`);
}

runBench(main);
