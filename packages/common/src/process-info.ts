import { loadavg } from 'node:os';

/** Diagnostics of the running process, for /health. */
export function processInfo() {
  const memory = process.memoryUsage();
  return {
    pid: process.pid,
    node: process.version,
    uptimeSeconds: Math.round(process.uptime()),
    memory: { rssBytes: memory.rss, heapUsedBytes: memory.heapUsed },
    loadAverage: loadavg(),
  };
}
