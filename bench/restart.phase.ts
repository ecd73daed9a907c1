import { loadavg } from 'node:os';
import type { PhaseContext } from './phase.js';
import { measureWorstCaseRestart } from './restart-million.js';
import type { BenchResults } from './results.js';

/** Issue 33's worst-case restart: a million creates over HTTP into an empty history, SIGTERM, start again. */
export async function runRestartPhase(ctx: PhaseContext, results: BenchResults): Promise<void> {
  try {
    const loadBefore = loadavg()[0]!;
    const restart = await measureWorstCaseRestart();
    results.notifications.restart = restart;
    ctx.log(
      `worst-case restart (load average ${loadBefore.toFixed(1)}): ${restart.creates.toLocaleString('en-US')} creates in ${restart.createSeconds.toFixed(0)} s, ` +
        `stopped in ${restart.stopMs.toFixed(0)} ms leaving ${restart.leftSnapshotMb.toFixed(0)} MB snapshot + ${restart.leftJournalMb.toFixed(0)} MB journal, ` +
        `started in ${restart.listedMs.toFixed(0)} ms (${restart.startCpuMs.toFixed(0)} ms CPU), RSS ${restart.afterStartMb.toFixed(0)} MB`,
    );
  } catch (error) {
    ctx.fail('the worst-case restart', error);
  }
}
