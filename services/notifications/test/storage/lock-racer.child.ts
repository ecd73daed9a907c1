// Child process for the lock race: loads, says "ready", then for each line "go <lock path>" tries that lock once and
// says how it went. It keeps every lock it took (staying alive) until the test kills it, so one racer serves many
// races, each on its own lock file: starting a TypeScript process is what takes the time, not the race.
import { createInterface } from 'node:readline';
import { FileLock } from '../../src/adapters/storage/file-lock.js';

process.stdout.write('ready\n');
for await (const line of createInterface({ input: process.stdin })) {
  const lockPath = /^go (.+)$/.exec(line)?.[1];
  if (lockPath === undefined) continue;
  try {
    await new FileLock(lockPath).acquire('the history');
    process.stdout.write('held\n');
  } catch (error) {
    process.stdout.write(`refused ${(error as { code?: string }).code} ${(error as Error).message}\n`);
  }
}
setInterval(() => undefined, 60_000);
