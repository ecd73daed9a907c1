// kill -9 of the built notification service with a large history, twice: during a burst of creates, and during a
// fold of the journal into the YAML snapshot; after each restart every acknowledged (201) notification must be there.
// Usage: npx -y pnpm@10 exec tsx bench/crash-million.ts [stored, default 1000000]   (writes bench/results/crash-million.json)
import { once } from 'node:events';
import { existsSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { httpCall } from './http-call.js';
import { join } from 'node:path';
import { installCleanupHandlers, makeTempDir, removeTempDir, stopChild, type Child } from './processes.js';
import { buildServices, ROOT, seedHistory, startNotifications } from './services.js';

const stored = Number(process.argv[2] ?? 1_000_000);
const agent = new Agent({ keepAlive: true, maxSockets: 32 });

const call = (port: number, method: string, path: string, body?: object) => httpCall(agent, port, method, path, body);

/** Creates with 32 at a time until `stop()` says so; every id answered 201 is acknowledged, hence must survive. */
async function burst(port: number, acked: string[], stop: () => boolean, tag: string): Promise<number> {
  let failed = 0;
  let n = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (!stop()) {
        try {
          const res = await call(port, 'POST', '/notifications', {
            recipient: `crash-${n % 7}`,
            title: `${tag} ${n++}`,
            message: 'Created just before a kill -9.',
          });
          if (res.status === 201) acked.push((JSON.parse(res.text) as { id: string }).id);
        } catch {
          failed += 1; // the process died under this request: not acknowledged
          return;
        }
      }
    }),
  );
  return failed;
}

function kill9(child: Child): Promise<unknown> {
  const gone = once(child.process, 'exit');
  child.process.kill('SIGKILL');
  return gone;
}

async function missing(port: number, ids: string[]): Promise<string[]> {
  const lost: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < ids.length) {
        const id = ids[next++]!;
        if ((await call(port, 'GET', `/notifications/single/${id}`)).status !== 200) lost.push(id);
      }
    }),
  );
  return lost;
}

installCleanupHandlers();
const dir = makeTempDir('crash-million-');
try {
  await buildServices();
  const path = join(dir, 'notifications.yaml');
  const seedMs = await seedHistory(path, stored, dir);
  const acked: string[] = [];

  // 1. kill -9 in the middle of a burst of creates.
  let service = await startNotifications(path, dir);
  const burstStarted = Date.now();
  const duringBurst = burst(service.port, acked, () => Date.now() - burstStarted > 60_000, 'burst');
  await new Promise((resolve) => setTimeout(resolve, 5_000));
  await kill9(service.child);
  await duringBurst;
  const ackedInBurst = acked.length;
  service = await startNotifications(path, dir);
  const restartAfterBurstMs = Math.round(service.startupMs);
  const lostAfterBurst = await missing(service.port, acked);

  // 2. kill -9 while a fold rewrites the snapshot: enough journal for a quiet-time fold, then a pause to start it.
  // The journal must reach a sixteenth of the snapshot (~450 bytes of journal per create, ~560 of YAML per record).
  const target = acked.length + Math.ceil(stored / 8);
  await burst(service.port, acked, () => acked.length >= target, 'before fold');
  const tmp = `${path}.tmp`;
  const waitStarted = Date.now();
  while (!existsSync(tmp) && Date.now() - waitStarted < 60_000) await new Promise((resolve) => setTimeout(resolve, 20));
  const foldWasRunning = existsSync(tmp);
  await new Promise((resolve) => setTimeout(resolve, 500));
  await kill9(service.child);
  service = await startNotifications(path, dir);
  const restartAfterFoldKillMs = Math.round(service.startupMs);
  const lostAfterFold = await missing(service.port, acked);
  await stopChild(service.child, 60_000);

  const result = {
    stored,
    seedMs,
    burst: { acknowledged: ackedInBurst, restartMs: restartAfterBurstMs, lost: lostAfterBurst.length },
    fold: { killedWhileFolding: foldWasRunning, acknowledgedInTotal: acked.length, restartMs: restartAfterFoldKillMs, lost: lostAfterFold.length },
  };
  writeFileSync(join(ROOT, 'bench/results/crash-million.json'), `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  if (lostAfterBurst.length + lostAfterFold.length > 0 || !foldWasRunning) process.exitCode = 1;
} finally {
  agent.destroy();
  removeTempDir(dir);
}
