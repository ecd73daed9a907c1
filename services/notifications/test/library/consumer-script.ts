/** The script the packed-library test runs in a project outside the workspace (kept as text: it is not built here). */
export const CONSUMER_SCRIPT = `
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, PushoverService, PushoverError, PUSHOVER_SOUNDS, createApp } from '@homeops/notifications';

const storagePath = join(mkdtempSync(join(tmpdir(), 'consumer-history-')), 'notifications.yaml');
const app = new App({ port: 0, storagePath, host: '127.0.0.1', provider: false, logLevel: 'silent' });
await app.start();
const base = 'http://127.0.0.1:' + app.port;
const created = await fetch(base + '/notifications', {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ recipient: 'ops', title: 'Packed', message: 'from the tarball', priority: 1 }),
});
const list = await fetch(base + '/notifications/ops');
const result = {
  port: app.port,
  createdStatus: created.status,
  created: await created.json(),
  listStatus: list.status,
  total: list.headers.get('x-total-count'),
  list: await list.json(),
  exports: [typeof PushoverService, typeof PushoverError, PUSHOVER_SOUNDS.length, typeof createApp],
};
await app.stop();
process.stdout.write(JSON.stringify(result));
`;
