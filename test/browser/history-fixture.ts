import { writeFileSync } from 'node:fs';
import { YamlNotificationRepository } from '../../services/notifications/src/adapters/storage/yaml-notification.repository.js';
import { journalFileName } from '../../services/notifications/src/adapters/storage/snapshot-writer.js';
import { formatHeader, formatRecord } from '../../services/notifications/src/adapters/storage/yaml-snapshot-format.js';
import { benchRecord } from '../../services/notifications/bench/storage-bench-data.js';

/**
 * A history of `count` bench records at `path`, as a service stopped in time leaves it: the YAML snapshot (written with
 * the repository's own formatter, as its fold writes it) and the index cache the repository makes when it opens it.
 * The same state as bench/seed-history.child.ts, in a second instead of twenty: that one inserts record by record.
 */
export async function writeStoppedHistory(path: string, count: number): Promise<void> {
  const generation = 1;
  const parts = [formatHeader(journalFileName(path, generation), generation, count === 0)];
  for (let i = 0; i < count; i += 1) {
    parts.push(formatRecord(benchRecord(i)));
    // A turn of the event loop now and then: services started beside it are waited on by this same process.
    if (i % 5_000 === 4_999) await new Promise((resolve) => setImmediate(resolve));
  }
  writeFileSync(path, parts.join(''));
  const repository = new YamlNotificationRepository(path);
  await repository.open();
  await repository.close();
}
