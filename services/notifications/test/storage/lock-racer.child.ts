// Child process for the lock race: loads, says "ready", and on "go" tries the lock once and says how it went.
// It then keeps the lock (staying alive) until the test kills it.
import { once } from 'node:events';
import { FileLock } from '../../src/adapters/storage/file-lock.js';

const lock = new FileLock(process.argv[2]!);
process.stdin.setEncoding('utf8');
process.stdout.write('ready\n');
await once(process.stdin, 'data');
try {
  await lock.acquire('the history');
  process.stdout.write('held\n');
} catch (error) {
  process.stdout.write(`refused ${(error as { code?: string }).code} ${(error as Error).message}\n`);
}
setInterval(() => undefined, 60_000);
