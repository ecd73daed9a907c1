import { afterTest } from '@homeops/test-kit';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { YamlNotificationRepository, type YamlRepositoryOptions } from '../../src/adapters/storage/yaml-notification.repository.js';

/** A fresh directory, removed after the test. */
export async function makeTempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'notifications-storage-'));
  afterTest(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** An opened repository on `path`, closed after the test. */
export async function openRepository(path: string, options: YamlRepositoryOptions = {}): Promise<YamlNotificationRepository> {
  const repo = new YamlNotificationRepository(path, options);
  await repo.open();
  afterTest(() => repo.close());
  return repo;
}
