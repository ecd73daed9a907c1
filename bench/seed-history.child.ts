// Writes a notification history of N records through the service's own storage adapter, then closes it so
// everything is folded into the YAML snapshot (the state a stopped service leaves behind).
// Usage: node --conditions=source --import tsx bench/seed-history.child.ts <path> <count>
import { YamlNotificationRepository } from '../services/notifications/src/adapters/storage/yaml-notification.repository.js';
import { benchRecord } from '../services/notifications/bench/storage-bench-data.js';

const BATCH = 2_000;
const [path, countArg] = process.argv.slice(2);
const count = Number(countArg);
if (!path || !Number.isInteger(count) || count < 0) throw new Error('usage: seed-history.child.ts <path> <count>');

const started = performance.now();
// No fold while seeding: one snapshot write at close instead of several along the way.
// ...and that write is never cut short, so the history starts as a snapshot, as a service that stopped in time leaves it.
const repo = new YamlNotificationRepository(path, { compactAfterBytes: Number.MAX_SAFE_INTEGER, closeFoldBudgetMs: Number.MAX_SAFE_INTEGER });
await repo.open();
for (let done = 0; done < count;) {
  const batch = Math.min(BATCH, count - done);
  await Promise.all(Array.from({ length: batch }, (_, i) => repo.insert(benchRecord(done + i))));
  done += batch;
}
await repo.close();
process.stdout.write(`${JSON.stringify({ records: count, ms: Math.round(performance.now() - started) })}\n`);
