import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileAttachmentStore } from '../../src/adapters/storage/file-attachment.store.js';
import { YamlNotificationRepository } from '../../src/adapters/storage/yaml-notification.repository.js';
import { attachmentDirOf } from '../../src/build-storage.js';
import { parseConfig } from '../../src/config.js';
import { startNotifications, type RunningService } from '../../src/compose.js';
import { FakePushProvider } from '../fakes/fake-push.provider.js';
import { PNG } from '../support/files.js';
import { makeTempDir, silentLogger } from '../support/test-app.js';
import { FaultyFs } from '../storage/faulty-fs.js';
import { expectErrorBody, sendRaw, type RawResponse } from '@homeops/test-kit';

interface Harness {
  fs: FaultyFs;
  dir: string;
  storagePath: string;
  service: RunningService;
  request(method: string, target: string, body?: object): Promise<RawResponse>;
}

const running: RunningService[] = [];
afterEach(async () => {
  for (const service of running.splice(0)) await service.stop();
});

/** The real service over the real YAML history, with every history and attachment write going through FaultyFs. */
async function start(dir: string, fs = new FaultyFs()): Promise<Harness> {
  const storagePath = join(dir, 'notifications.yaml');
  const config = parseConfig({ PORT: '0', HOST: '127.0.0.1', STORAGE_PATH: storagePath });
  const adapters = {
    repository: new YamlNotificationRepository(storagePath, { fs }),
    attachments: new FileAttachmentStore(attachmentDirOf(storagePath), fs),
    provider: new FakePushProvider(false),
  };
  const service = await startNotifications(config, { logger: silentLogger, ...adapters }, { handleSignals: false });
  running.push(service);
  const request = (method: string, target: string, body?: object) =>
    sendRaw(service.port, {
      method,
      target,
      ...(body ? { headers: [['Content-Type', 'application/json']] as Array<[string, string]>, body: JSON.stringify(body) } : {}),
    });
  return { fs, dir, storagePath, service, request };
}

const json = <T>(res: RawResponse): T => JSON.parse(res.body.toString('utf8')) as T;

/** Files only: an empty attachments folder made on the way is not data. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

async function contentsUnder(dir: string): Promise<string> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
  return (await Promise.all(files.map((f) => readFile(f, 'latin1')))).join('\n');
}

describe.each([
  ['writes fail (ENOSPC)', (fs: FaultyFs) => void (fs.failWrites = 'ENOSPC')],
  ['bytes land but fdatasync fails (EIO)', (fs: FaultyFs) => void Object.assign(fs, { failWrites: 'EIO', failSyncOnly: true })],
])('notifications when %s', (_label, breakDisk) => {
  it('answers every write with 503 and the error body, keeps serving reads, leaves nothing behind and resumes', { timeout: 20_000 }, async () => {
    const h = await start(await makeTempDir());
    const kept = json<{ id: string }>(await h.request('POST', '/notifications', { recipient: 'ops', message: 'before the failure' }));
    const doomed = json<{ id: string }>(await h.request('POST', '/notifications', { recipient: 'ops', message: 'delete me later' }));
    const filesBefore = await filesUnder(h.dir);

    breakDisk(h.fs);
    const writes: Array<[string, string, object?]> = [
      ['POST', '/notifications', { recipient: 'ops', message: 'LOST-PLAIN-MARKER' }],
      [
        'POST',
        '/notifications',
        { recipient: 'ops', message: 'LOST-ATTACHMENT-MARKER', attachment: { filename: 'a.png', contentType: 'image/png', data: PNG.toString('base64') } },
      ],
      ['PATCH', `/notifications/${kept.id}/read`],
      ['POST', '/notifications/ops/read-all'],
      ['DELETE', `/notifications/${doomed.id}`],
    ];
    for (const [method, target, body] of writes) {
      const res = await h.request(method, target, body);
      expect(res.status, `${method} ${target}: ${res.body.toString('utf8')}`).toBe(503);
      expectErrorBody(res, `${method} ${target}`);
    }
    const health = await h.request('GET', '/health');
    expect(health.status).toBe(503);
    expect(json<{ status: string }>(health).status).toBe('error');
    const list = await h.request('GET', '/notifications/ops');
    expect(list.status).toBe(200);
    expect(
      json<Array<{ id: string; read: boolean }>>(list)
        .map((n) => [n.id, n.read])
        .sort(),
    ).toEqual(
      [
        [doomed.id, false],
        [kept.id, false],
      ].sort(),
    );

    // Nothing half-written: no temp or attachment file, and no byte of the refused records on disk.
    expect(await filesUnder(h.dir)).toEqual(filesBefore);
    const disk = await contentsUnder(h.dir);
    expect(disk).not.toContain('LOST-PLAIN-MARKER');
    expect(disk).not.toContain('LOST-ATTACHMENT-MARKER');

    h.fs.failWrites = undefined;
    h.fs.failSyncOnly = false;
    const after = await h.request('POST', '/notifications', { recipient: 'ops', message: 'after the recovery' });
    expect(after.status).toBe(201);
    expect((await h.request('GET', '/health')).status).toBe(200);
    expect((await h.request('DELETE', `/notifications/${doomed.id}`)).status).toBe(204);

    await h.service.stop();
    running.splice(running.indexOf(h.service), 1);
    const again = await start(h.dir);
    const ids = json<Array<{ id: string; message: string }>>(await again.request('GET', '/notifications/ops'))
      .map((n) => n.message)
      .sort();
    expect(ids).toEqual(['after the recovery', 'before the failure']);
    expect(await contentsUnder(h.dir)).not.toContain('LOST-');
  });
});
