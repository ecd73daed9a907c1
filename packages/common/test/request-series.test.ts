import fc from 'fast-check';
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { HTTP_LATENCY_BUCKETS, RequestSeries } from '../src/request-series.js';

/** Every sample line of an exposition as `name{labels}` → value, the labels in a fixed order. */
function samples(text: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([^{ ]+)\{(.*)\} (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels = [...match[2]!.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => `${m[1]}=${m[2]}`).sort();
    found.set(`${match[1]}{${labels.join(',')}}`, Number(match[3]));
  }
  return found;
}

/** The same requests through prom-client, as the HTTP families were kept before RequestSeries. */
function promClientExposition(requests: [string, string, number, number][]): Promise<string> {
  const registry = new Registry();
  const counter = new Counter({ name: 'http_requests_total', help: 'h', labelNames: ['method', 'route', 'status'], registers: [registry] });
  const histogram = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'h',
    labelNames: ['method', 'route'],
    buckets: [...HTTP_LATENCY_BUCKETS],
    registers: [registry],
  });
  for (const [method, route, status, seconds] of requests) {
    counter.inc({ method, route, status });
    histogram.observe({ method, route }, seconds);
  }
  return registry.metrics();
}

const request = fc.tuple(
  fc.constantFrom('GET', 'POST', 'DELETE', 'other'),
  fc.oneof(fc.constantFrom('/notifications', '/devices/:uuid/toggle', 'unmatched'), fc.string({ maxLength: 12 })),
  fc.constantFrom(200, 201, 400, 404, 499),
  fc.oneof(fc.constantFrom(...HTTP_LATENCY_BUCKETS, 0), fc.double({ min: 0, max: 10, noNaN: true })),
);

describe('RequestSeries', () => {
  it('writes the same samples as prom-client for the same requests (bucket bounds, odd route names and escapes included)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(request, { maxLength: 60 }), async (requests) => {
        const series = new RequestSeries();
        for (const [method, route, status, seconds] of requests) series.observe(method, route, status, seconds);

        const ours = samples(series.exposition());
        const theirs = samples(await promClientExposition(requests));

        expect([...ours.keys()].sort()).toEqual([...theirs.keys()].sort());
        for (const [key, value] of theirs) expect(ours.get(key)).toBeCloseTo(value, 9);
      }),
      { numRuns: 200 },
    );
  });

  it('writes each family once with its HELP and TYPE lines, also before any request', () => {
    const empty = new RequestSeries().exposition();

    expect(empty).toContain('# TYPE http_requests_total counter');
    expect(empty).toContain('# TYPE http_request_duration_seconds histogram');
    expect(samples(empty).size).toBe(0);
  });
});
