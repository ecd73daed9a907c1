// Loaded into a measured service with `--expose-gc --import`: on SIGUSR2 it collects garbage fully and writes
// process.memoryUsage() to $BENCH_MEMORY_FILE, so the bench reads the live heap without touching the service's code.
import { writeFileSync } from 'node:fs';

process.on('SIGUSR2', () => {
  globalThis.gc?.();
  globalThis.gc?.();
  writeFileSync(process.env.BENCH_MEMORY_FILE, JSON.stringify(process.memoryUsage()));
});
