import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../src/index.js';
import { freshDatabase } from '../support/postgres-database.js';
import { makeTempDir } from '../support/test-app.js';

const apps: App[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.stop();
});

describe('the library App on PostgreSQL', () => {
  it('keeps the history in the database given as storageUrl, shared by two apps', async () => {
    const storageUrl = await freshDatabase();
    const dir = await makeTempDir();
    const options = { port: 0, host: '127.0.0.1', provider: false as const, logLevel: 'silent' as const, storageUrl };
    const first = new App({ ...options, storagePath: join(dir, 'a.yaml') });
    const second = new App({ ...options, storagePath: join(dir, 'b.yaml') });
    apps.push(first, second);
    await first.start();
    await second.start();
    const created = await fetch(`http://127.0.0.1:${first.port}/notifications`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ recipient: 'ops', message: 'from the first app' }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const listed = (await (await fetch(`http://127.0.0.1:${second.port}/notifications/ops`)).json()) as Array<{ id: string }>;
    expect(listed.map((n) => n.id)).toEqual([id]);
    const health = (await (await fetch(`http://127.0.0.1:${second.port}/health`)).json()) as { storage: { engine: string } };
    expect(health.storage.engine).toBe('postgres');
  });
});
