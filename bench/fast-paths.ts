// Each hand-written fast path against the plain library, alone and in one process (issue 33, docs/decisions/): what
// it saves per request in CPU time, the two sides alternating in short batches (ABBA…) so that load from elsewhere on
// the machine reaches both alike. The HTTP A/B of the whole service (bench/ab-stage.ts --workload requests) gives the
// share of a request; on a loaded machine its spread hides a few microseconds, which this shows directly.
// Usage: npx -y pnpm@10 exec tsx bench/fast-paths.ts [rounds, default 10] > /tmp/fast-paths.log
// (standard output gets the log lines of the stdout case); writes bench/results/fast-paths.json.
import { writeFileSync } from 'node:fs';
import { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { Socket } from 'node:net';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { type createHttpApp, HELMET_OPTIONS, inSeries, replayStaticHeaders } from '../packages/common/src/http-app.js';
import { createLogger, scalarLogger } from '../packages/common/src/logger.js';
import { readLargeJson } from '../services/notifications/src/http/large-json.reader.js';
import { readPlainJson } from '../services/notifications/src/http/plain-json.reader.js';
import { machineOf, median, runBench } from './ab-report.js';
import { CREATE_BODY, RESULTS, ROOT } from './services.js';

// The services' own express, helmet and pino (the root has none of them), typed through packages/common.
type RequestHandler = Parameters<typeof inSeries>[0][number];
type Request = Parameters<RequestHandler>[0];
type Response = Parameters<RequestHandler>[1];
type Express = ReturnType<typeof createHttpApp>;
type Destination = NonNullable<Parameters<typeof createLogger>[0]['destination']>;
const fromCommon = createRequire(join(ROOT, 'packages/common/package.json'));
const express = fromCommon('express') as { (): Express; Router(options: { caseSensitive: boolean; strict: boolean }): Express };
const helmetModule = fromCommon('helmet') as { default: (options: typeof HELMET_OPTIONS) => RequestHandler };
const helmet = helmetModule.default;
const pino = fromCommon('pino') as { destination(options: { sync: boolean }): Destination };

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

// The routes of the notification service, in the order it mounts them.
const ROUTE_PATHS: [method: 'get' | 'post' | 'put' | 'delete', path: string][] = [
  ['get', '/metrics'],
  ['get', '/tokens'],
  ['post', '/tokens'],
  ['delete', '/tokens/:id'],
  ['get', '/health'],
  ['post', '/notifications'],
  ['get', '/notifications/single/:id'],
  ['get', '/notifications/:recipient'],
  ['post', '/notifications/:id/resend'],
  ['delete', '/notifications/:id'],
  ['get', '/notifications/single/:id/attachment'],
  ['get', '/notifications/:recipient/stream'],
  ['get', '/events'],
  ['post', '/notifications/:id/read'],
  ['post', '/notifications/:id/unread'],
  ['post', '/notifications/:recipient/read-all'],
  ['get', '/recipients'],
  ['get', '/sounds'],
  ['get', '/scheduled'],
  ['put', '/scheduled/:key'],
  ['delete', '/scheduled/:key'],
  ['get', '/heartbeats'],
  ['put', '/heartbeats/:name'],
  ['post', '/heartbeats/:name/ping'],
  ['delete', '/heartbeats/:name'],
  ['post', '/hooks/:template'],
];

type Done = { done?: () => void };
const answer: RequestHandler = (req) => (req as unknown as Done).done!();
const pass: RequestHandler = (_req, _res, next) => next();

/** Express settings createHttpApp uses. */
function bareApp(): Express {
  const app = express();
  app.set('query parser', 'simple');
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  return app;
}

/** n requests through `app`, one after another, each answered by its route handler (nothing written). */
function drive(app: Express, method: string, url: string): Side {
  const handle = app as unknown as (q: IncomingMessage, s: ServerResponse, next: (err?: unknown) => void) => void;
  return async (n) => {
    // One request object for the batch, so that what is measured is the dispatch rather than allocation.
    const req = incoming(method, url, { host: 'localhost' });
    const res = new ServerResponse(req);
    for (let i = 0; i < n; i++) {
      req.url = url;
      await new Promise<void>((resolve, reject) => {
        (req as unknown as Done).done = resolve;
        handle(req, res, (err) => reject(new Error(`fell through: ${String(err)}`)));
      });
    }
  };
}

// The baseline of createHttpApp for the notification service: access log, headers, Host, cross-origin writes,
// the create body parsers, the JSON parser.
const BASELINE_STEPS = 6;

function layersTrial(): Trial {
  const steps = Array.from({ length: BASELINE_STEPS }, () => pass);
  const inOne = bareApp();
  inOne.use(inSeries(steps));
  inOne.get('/sounds', answer);
  const apart = bareApp();
  for (const step of steps) apart.use(step);
  apart.get('/sounds', answer);
  return {
    name: 'series',
    record: 'in-series-baseline.md',
    what: `${BASELINE_STEPS} baseline steps as one layer (inSeries) against ${BASELINE_STEPS} app.use layers; GET /sounds`,
    batch: 5000,
    fast: drive(inOne, 'GET', '/sounds'),
    plain: drive(apart, 'GET', '/sounds'),
  };
}

function routesTrial(method: 'GET' | 'POST', url: string): Trial {
  const onApp = bareApp();
  onApp.use(pass);
  for (const [m, path] of ROUTE_PATHS) onApp[m](path, answer);
  const nested = bareApp();
  nested.use(pass);
  const router = express.Router({ caseSensitive: true, strict: true });
  for (const [m, path] of ROUTE_PATHS) router[m](path, answer);
  nested.use(router);
  return {
    name: `router ${method} ${url}`,
    record: 'routes-on-app.md',
    what: `${ROUTE_PATHS.length} routes on the app against the same routes on a nested case-sensitive, strict Router; ${method} ${url}`,
    batch: 5000,
    fast: drive(onApp, method, url),
    plain: drive(nested, method, url),
  };
}

function helmetTrial(): Trial {
  const replay = replayStaticHeaders(helmet(HELMET_OPTIONS));
  const plain = helmet(HELMET_OPTIONS);
  const side =
    (middleware: RequestHandler): Side =>
    async (n) => {
      const req = incoming('GET', '/sounds', { host: 'localhost' });
      for (let i = 0; i < n; i++) {
        const res = new ServerResponse(req);
        await new Promise<void>((resolve, reject) =>
          middleware(req as Request, res as unknown as Response, (err?: unknown) => (err ? reject(err as Error) : resolve())),
        );
      }
    };
  return {
    name: 'helmet',
    record: 'helmet-replay.md',
    what: 'helmet(HELMET_OPTIONS) recorded once and replayed against helmet(HELMET_OPTIONS) on each response',
    batch: 2000,
    fast: side(replay),
    plain: side(plain),
  };
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

/** Access lines as a group commit logs them: `perTurn` in one turn of the event loop, then the next turn. */
function stdoutTrial(perTurn: number): Trial {
  const fast = scalarLogger(createLogger({ service: 'bench' }));
  const plain = scalarLogger(createLogger({ service: 'bench', destination: pino.destination({ sync: false }) }));
  const line = { reqId: '6f1c1f4e-2f7a-4a55-9d0e-2b7c2f0e9a11', method: 'POST', url: '/notifications', status: 201, ms: 1.234 };
  const side =
    (logger: typeof fast): Side =>
    async (n) => {
      for (let i = 0; i < n; i += perTurn) {
        for (let j = 0; j < perTurn; j++) logger.info(line, 'request completed');
        await new Promise((resolve) => setImmediate(resolve));
      }
      // Let the writes of this batch finish inside it.
      await new Promise((resolve) => setTimeout(resolve, 20));
    };
  return {
    name: `stdout ${perTurn} per turn`,
    record: 'turn-batched-stdout.md',
    what: `Access lines, ${perTurn} per event-loop turn, through turnBatchedStdout against one pino.destination({ sync: false })`,
    batch: 4000,
    fast: side(fast),
    plain: side(plain),
  };
}

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 10);
  const loadStart = loadavg()[0]!;
  const trials = [
    helmetTrial(),
    layersTrial(),
    routesTrial('POST', '/notifications'),
    routesTrial('GET', '/sounds'),
    jsonTrial(),
    stdoutTrial(1),
    stdoutTrial(32),
  ];
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
    console.error(
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
