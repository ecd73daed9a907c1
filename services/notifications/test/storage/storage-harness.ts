import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { YamlNotificationRepository, type YamlRepositoryOptions } from '../../src/adapters/storage/yaml-notification.repository.js';

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A fresh directory, removed after the test. */
export async function makeTempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'notifications-storage-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** An opened repository on `path`, closed after the test. */
export async function openRepository(path: string, options: YamlRepositoryOptions = {}): Promise<YamlNotificationRepository> {
  const repo = new YamlNotificationRepository(path, options);
  await repo.open();
  cleanups.push(() => repo.close());
  return repo;
}
