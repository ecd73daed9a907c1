import { InMemoryNotificationRepository } from '../fakes/in-memory-notification.repository.js';
import { describeRepositoryContract } from './repository-contract.js';
import { describe, expect, it } from 'vitest';
import { makeRecord } from './make-record.js';

describeRepositoryContract('InMemoryNotificationRepository', async () => new InMemoryNotificationRepository());

describe('InMemoryNotificationRepository (fake controls)', () => {
  it('rejects writes with STORAGE_UNAVAILABLE while failWrites is set, and recovers', async () => {
    const repo = new InMemoryNotificationRepository();
    repo.failWrites = true;
    await expect(repo.insert(makeRecord())).rejects.toMatchObject({ code: 'STORAGE_UNAVAILABLE' });
    expect(await repo.stats()).toMatchObject({ writable: false, records: 0 });
    repo.failWrites = false;
    await repo.insert(makeRecord());
    expect(await repo.stats()).toMatchObject({ writable: true, records: 1, lastError: null });
    expect(repo.calls).toHaveLength(2);
  });
});
