import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { percentile } from './load.js';
import { makeTempDir, removeTempDir } from './processes.js';

/** Append plus fdatasync on the disk the histories are written to: what one durable group commit costs here. */
export interface DiskProbe {
  samples: number;
  p50Ms: number;
  p99Ms: number;
}

export async function probeDurableAppend(samples = 200): Promise<DiskProbe> {
  const dir = makeTempDir('disk-probe');
  const file = await open(join(dir, 'probe.journal'), 'a');
  try {
    const line = Buffer.from(`${'x'.repeat(399)}\n`);
    const times: number[] = [];
    for (let i = 0; i < samples; i++) {
      const started = performance.now();
      await file.write(line);
      await file.datasync();
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    return { samples, p50Ms: percentile(times, 0.5), p99Ms: percentile(times, 0.99) };
  } finally {
    await file.close();
    removeTempDir(dir);
  }
}
