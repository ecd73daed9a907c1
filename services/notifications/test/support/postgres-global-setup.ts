import type { TestProject } from 'vitest/node';
import { startPostgresCluster } from './postgres-cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The superuser URL of the run's throwaway PostgreSQL cluster (postgres project only). */
    postgresUrl: string;
  }
}

/** One throwaway cluster for the whole run of the postgres project; each test makes its own database in it. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cluster = await startPostgresCluster();
  project.provide('postgresUrl', cluster.url);
  return () => cluster.destroy();
}
