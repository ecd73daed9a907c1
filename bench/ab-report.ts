// What the A/B benches (metrics-overhead, token-auth, alerts) share: the median, the machine as a report names it,
// and running main() with its processes cleaned up on failure.
import { cpus, loadavg } from 'node:os';
import { cleanUpNow } from './processes.js';

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** The machine, with the load average at the start (given) and now. */
export function machineOf(loadAverageStart: number) {
  return { cpuModel: cpus()[0]?.model.trim() ?? 'unknown', cores: cpus().length, node: process.version, loadAverageStart, loadAverageEnd: loadavg()[0]! };
}

/** Runs a bench's main and exits: 0 when it finished, 1 (after killing what it started) when it threw. */
export function runBench(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      cleanUpNow();
      process.exit(1);
    },
  );
}
