import pg from 'pg';
import { inject } from 'vitest';

let made = 0;

/** A fresh empty database in the run's cluster (postgres project: see postgres-global-setup.ts); its URL. */
export async function freshDatabase(): Promise<string> {
  const admin = inject('postgresUrl');
  if (!admin) throw new Error('No PostgreSQL cluster: run this file in the postgres project (vitest --project slow:postgres)');
  const name = `test_${process.pid}_${Date.now().toString(36)}_${++made}`;
  const client = new pg.Client(admin);
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name} TEMPLATE template0`);
  } finally {
    await client.end();
  }
  return admin.replace(/\/postgres$/, `/${name}`);
}

/** The rows of one statement on its own connection (for checks from outside the service). */
export async function queryRows<R extends pg.QueryResultRow>(url: string, text: string): Promise<R[]> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    return (await client.query<R>(text)).rows;
  } finally {
    await client.end();
  }
}
