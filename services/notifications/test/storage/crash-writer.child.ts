// Child process for the crash test: writes as fast as it can and prints each change once it is acknowledged.
import { YamlNotificationRepository } from '../../src/adapters/storage/yaml-notification.repository.js';
import { makeRecord } from './make-record.js';

const path = process.argv[2]!;
const repo = new YamlNotificationRepository(path, { compactAfterBytes: 48 * 1024, snapshotChunkRecords: 50 });
await repo.open();
process.stdout.write('ready\n');

async function writeForever(worker: number): Promise<never> {
  for (let i = 0; ; i++) {
    const record = makeRecord({ recipient: `r${worker % 4}` });
    await repo.insert(record);
    process.stdout.write(`insert ${record.id}\n`);
    if (i % 3 === 0) {
      await repo.update(record.id, { read: true, readAt: record.createdAt });
      process.stdout.write(`read ${record.id}\n`);
    }
  }
}

await Promise.all(Array.from({ length: 16 }, (_, worker) => writeForever(worker)));
