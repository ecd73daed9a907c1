// How long the built notification service takes from SIGTERM to exit, at a given history size: once quiet (the
// journal folded), once right after a load of creates (a journal to fold or leave for the next start).
// Usage: npx -y pnpm@10 exec tsx bench/stop-time.ts [stored, default 100000] [creates, default 20000]
import { once } from 'node:events';
import { join } from 'node:path';
import { installCleanupHandlers, makeTempDir, removeTempDir } from './processes.js';
import { buildServices, seedHistory, startNotifications } from './services.js';

const stored = Number(process.argv[2] ?? 100_000);
const creates = Number(process.argv[3] ?? 20_000);

async function createMany(port: number, count: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next++ < count) {
      const res = await fetch(`http://127.0.0.1:${port}/notifications`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ recipient: 'stop', message: 'a notification created just before the stop' }),
      });
      if (res.status !== 201) throw new Error(`create answered ${res.status}`);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}

async function timedStop(storagePath: string, logDir: string, load: number): Promise<{ stopMs: number; startupMs: number }> {
  const { child, port, startupMs } = await startNotifications(storagePath, logDir);
  await createMany(port, load);
  const started = performance.now();
  child.process.kill('SIGTERM');
  const [code] = (await once(child.process, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`the service exited with ${code}`);
  return { stopMs: Math.round(performance.now() - started), startupMs: Math.round(startupMs) };
}

installCleanupHandlers();
const dir = makeTempDir('stop-time-');
try {
  await buildServices();
  const path = join(dir, 'notifications.yaml');
  const seedMs = await seedHistory(path, stored, dir);
  const quiet = await timedStop(path, dir, 0);
  const afterLoad = await timedStop(path, dir, creates);
  const next = await timedStop(path, dir, 0);
  process.stdout.write(`${JSON.stringify({ stored, creates, seedMs, quiet, afterLoad, nextStartThenQuietStop: next })}\n`);
} finally {
  removeTempDir(dir);
}
