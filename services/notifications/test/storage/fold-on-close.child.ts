// Child process for the crash test of the fold on close: opens the history, closes it (which folds the journal), and
// stops dead at the moment the parent names, printing `at <moment>`, so the parent can kill -9 it right there.
// Moments: `writing` (the new snapshot half written to the temp file), `renamed` (the new snapshot renamed in, the
// old journal not yet removed), `cached` (the index cache of the new snapshot written).
import { YamlNotificationRepository } from '../../src/adapters/storage/yaml-notification.repository.js';
import { nodeStorageFs, type StorageFs } from '../../src/adapters/storage/storage-fs.js';

const [path, moment] = process.argv.slice(2) as [string, 'writing' | 'renamed' | 'cached'];
const halt = (): Promise<never> => {
  process.stdout.write(`at ${moment}\n`);
  return new Promise<never>(() => undefined); // until the parent's SIGKILL
};

let appends = 0;
const fs: StorageFs = {
  ...nodeStorageFs,
  async open(file, flags) {
    const opened = await nodeStorageFs.open(file, flags);
    if (moment !== 'writing' || file !== `${path}.tmp`) return opened;
    return {
      ...opened,
      append: async (data) => {
        await opened.append(data);
        if (++appends === 20) await halt();
      },
    };
  },
  async rename(from, to) {
    await nodeStorageFs.rename(from, to);
    if ((moment === 'renamed' && to === path) || (moment === 'cached' && to === `${path}.cache`)) await halt();
  },
};

const repo = new YamlNotificationRepository(path, { fs, compactWhenQuietMs: 0, closeFoldBudgetMs: 60_000, snapshotChunkRecords: 10 });
await repo.open();
process.stdout.write('open\n');
await repo.close();
process.stdout.write('closed without halting\n');
