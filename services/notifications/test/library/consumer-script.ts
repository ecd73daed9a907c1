/** The ESM script the packed-library test runs in a project outside the workspace (kept as text: it is not built here). */
export const CONSUMER_SCRIPT = `
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, PushoverService, PushoverError, PUSHOVER_SOUNDS, sounds, createApp } from '@homeops/notifications';

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
const page = await fetch(base + '/');
const html = await page.text();
const script = /src="(\\/assets\\/[^"]+\\.js)"/.exec(html);
const asset = script ? await fetch(base + script[1]) : null;
const result = {
  dashboard: [page.status, html.includes('<title>Inbox'), asset && asset.status],
  port: app.port,
  createdStatus: created.status,
  created: await created.json(),
  listStatus: list.status,
  total: list.headers.get('x-total-count'),
  list: await list.json(),
  exports: [typeof PushoverService, typeof PushoverError, PUSHOVER_SOUNDS.length, sounds === PUSHOVER_SOUNDS, typeof createApp],
};
await app.stop();
process.stdout.write(JSON.stringify(result));
`;

/** The same library from CommonJS: require() of the ES module package (Node >= 20.19). */
export const CJS_CONSUMER = `
const { mkdtempSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { App, PUSHOVER_SOUNDS } = require('@homeops/notifications');

(async () => {
  const storagePath = join(mkdtempSync(join(tmpdir(), 'cjs-consumer-')), 'notifications.yaml');
  const app = new App({ port: 0, storagePath, host: '127.0.0.1', provider: false, logLevel: 'silent' });
  await app.start();
  const base = 'http://127.0.0.1:' + app.port;
  const created = await fetch(base + '/notifications', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ recipient: 'ops', message: 'from require' }),
  });
  const list = await fetch(base + '/notifications/ops');
  const result = { createdStatus: created.status, total: list.headers.get('x-total-count'), sounds: PUSHOVER_SOUNDS.length };
  await app.stop();
  process.stdout.write(JSON.stringify(result));
})();
`;

/** A typed consumer: compiles only if the package's `exports` lead TypeScript to its declarations. */
export const TYPED_CONSUMER = `
import { App, PushoverService, type NotificationRecord, type AppOptions } from '@homeops/notifications';
const options: AppOptions = { port: 0, storagePath: './n.yaml', provider: false };
const app: App = new App(options);
const port: number = app.port;
const record: Pick<NotificationRecord, 'id' | 'read'> = { id: 'x', read: false };
export const used = [app.start, port, record, PushoverService];
`;

export const CONSUMER_TSCONFIG = JSON.stringify({
  compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, noEmit: true, skipLibCheck: false, types: ['node'] },
  files: ['typed.ts'],
});
