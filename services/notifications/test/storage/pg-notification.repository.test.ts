import { afterEach } from 'vitest';
import { PgNotificationRepository } from '../../src/adapters/storage/postgres/pg-notification.repository.js';
import { freshDatabase } from '../support/postgres-database.js';
import { describeRepositoryContract } from './repository-contract.js';

const opened: PgNotificationRepository[] = [];
afterEach(async () => {
  for (const repo of opened.splice(0)) await repo.close();
});

describeRepositoryContract('PgNotificationRepository', async () => {
  const repo = new PgNotificationRepository({ url: await freshDatabase(), poolMax: 4, connectTimeoutMs: 5_000, queryTimeoutMs: 10_000, leaseMs: 30_000 });
  opened.push(repo);
  await repo.open();
  return repo;
});
