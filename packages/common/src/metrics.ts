import { createRequire } from 'node:module';
import type { Request, RequestHandler, Response } from 'express';
import type * as PromClient from 'prom-client';
import type { Counter, CounterConfiguration, Gauge, GaugeConfiguration, Histogram, HistogramConfiguration, Registry } from 'prom-client';
import { RequestSeries } from './request-series.js';

export { HTTP_LATENCY_BUCKETS } from './request-series.js';

/** The route label of a request no route answered (404s, and refusals of the guards before routing). */
export const UNMATCHED_ROUTE = 'unmatched';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

type Definition<T> = Omit<T, 'registers'>;

/**
 * Every value each label can take, when the set is known: each combination is exposed at 0 from the start, so a
 * series exists before its first event and `increase()` counts that event.
 */
export type KnownLabels<L extends string> = { readonly [K in L]: readonly string[] };

/** Every combination of the known values, one label set each (one empty set when there are no labels). */
export function labelCombinations<L extends string>(known: KnownLabels<L>): Record<L, string>[] {
  return (Object.entries(known) as [L, readonly string[]][]).reduce<Record<L, string>[]>(
    (sets, [name, values]) => sets.flatMap((set) => values.map((value) => ({ ...set, [name]: value }))),
    [{} as Record<L, string>],
  );
}

let promClient: typeof PromClient | undefined;

/** prom-client, loaded with the first AppMetrics: it takes about 27 ms and 14 MB to load, which METRICS=off saves. */
function prom(): typeof PromClient {
  return (promClient ??= createRequire(import.meta.url)('prom-client') as typeof PromClient);
}

let processRegistry: Registry | undefined;

/**
 * prom-client's process metrics (CPU, memory, event loop lag, GC, handles), once per process: they describe the
 * process, not an app, and each collection installs observers that are never removed.
 */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new (prom().Registry)();
    prom().collectDefaultMetrics({ register: processRegistry });
    // Gauges named like counters, which `promtool check metrics` flags; their per-type siblings (without _total) stay.
    for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) {
      processRegistry.removeSingleMetric(name);
    }
  }
  return processRegistry;
}

/**
 * The metrics of one app, in its own registry (never prom-client's global one, so tests and the library's `App`
 * build several apps in one process): requests by route template and status, their latency, the process metrics and
 * whatever the service registers (`counter`, `gauge`, `histogram`; gauges usually read their value at scrape time).
 */
export class AppMetrics {
  readonly registry: Registry = new (prom().Registry)();
  private readonly requests = new RequestSeries();

  /** A counter; with `known`, each of its label combinations starts at 0. */
  counter<L extends string>(definition: Definition<CounterConfiguration<L>>, known?: KnownLabels<L>): Counter<L> {
    const counter = new (prom().Counter)({ ...definition, registers: [this.registry] });
    if (known) for (const labels of labelCombinations(known)) counter.inc(labels, 0);
    return counter;
  }

  gauge<L extends string>(definition: Definition<GaugeConfiguration<L>>): Gauge<L> {
    return new (prom().Gauge)({ ...definition, registers: [this.registry] });
  }

  /** A histogram; with `known`, each of its label combinations starts with empty buckets. */
  histogram<L extends string>(definition: Definition<HistogramConfiguration<L>>, known?: KnownLabels<L>): Histogram<L> {
    const histogram = new (prom().Histogram)({ ...definition, registers: [this.registry] });
    if (known) for (const labels of labelCombinations(known)) histogram.zero(labels);
    return histogram;
  }

  /** Counts one answered request (status 499: the client went away first). */
  observeRequest(req: Request, status: number, ms: number): void {
    this.requests.observe(METHODS.has(req.method) ? req.method : 'other', routeTemplateOf(req), status, ms / 1000);
  }

  /** The text exposition format (version 0.0.4): the process metrics, the HTTP requests, then this app's. */
  async exposition(): Promise<string> {
    const [process, app] = await Promise.all([processMetrics().metrics(), this.registry.metrics()]);
    return `${process}${process.endsWith('\n') ? '' : '\n'}\n${this.requests.exposition()}\n${app}`;
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

/**
 * The route that answered, as its template (`/devices/:uuid/toggle`), never the URL: a label per URL would grow
 * without bound. A mounted app (`/docs`, `/assets`) is its mount path; a request no route took is `unmatched`.
 */
export function routeTemplateOf(req: Request): string {
  const route = (req as { route?: { path?: unknown } }).route;
  if (route && typeof route.path === 'string') return req.baseUrl + route.path;
  return req.baseUrl || UNMATCHED_ROUTE;
}

/** GET /metrics: the exposition of `metrics`. */
export function metricsHandler(metrics: AppMetrics): RequestHandler {
  return async (_req: Request, res: Response) => {
    const text = await metrics.exposition();
    res.setHeader('Content-Type', metrics.contentType);
    res.setHeader('Cache-Control', 'no-store');
    res.end(text);
  };
}
