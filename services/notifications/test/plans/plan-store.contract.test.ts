import { join } from 'node:path';
import { FilePlanStore } from '../../src/adapters/storage/file-plan-store.js';
import { InMemoryPlanStore } from '../../src/adapters/storage/in-memory-plan-store.js';
import { makeTempDir } from '../support/test-app.js';
import { describePlanStoreContract } from './plan-store.contract.js';

// The one-instance stores; PgPlanStore runs the same contract in pg-plan-store.test.ts (postgres project).
describePlanStoreContract('InMemoryPlanStore', {
  durable: false,
  open: () => {
    const store = new InMemoryPlanStore();
    return Promise.resolve({ store, reopen: () => Promise.resolve(store) });
  },
});

describePlanStoreContract('FilePlanStore', {
  durable: true,
  open: async () => {
    const file = join(await makeTempDir(), 'plans.json');
    const openOn = async () => {
      const store = new FilePlanStore(file);
      await store.open();
      return store;
    };
    return { store: await openOn(), reopen: openOn };
  },
});
