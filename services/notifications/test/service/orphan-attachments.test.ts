import { mkdtemp, readdir, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceProcess } from '@homeops/test-kit';
import { afterAll, describe, expect, it } from 'vitest';
import { attachmentDirOf } from '../../src/build-storage.js';
import { newNotificationId } from '../../src/domain/notification-id.js';
import { App } from '../../src/index.js';
import { PNG } from '../support/files.js';
import { makeTempDir } from '../support/test-app.js';

const withPng = { recipient: 'ops', message: 'door open', attachment: { filename: 'cam.png', contentType: 'image/png', data: PNG.toString('base64') } };

async function createWithPng(base: string): Promise<string> {
  const res = await fetch(`${base}/notifications`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(withPng) });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

async function download(base: string, id: string): Promise<{ status: number; body: Buffer }> {
  const res = await fetch(`${base}/notifications/single/${id}/attachment`);
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
}

/** What a kill -9 leaves: a saved file whose record never reached the history, and a save cut short. */
async function leaveCrashDebris(dir: string): Promise<string> {
  const orphan = newNotificationId(new Date());
  await writeFile(join(dir, orphan), PNG);
  await writeFile(join(dir, `${newNotificationId(new Date())}.tmp-0123456789ab`), PNG.subarray(0, 5));
  await writeFile(join(dir, 'README.txt'), 'put here by the operator');
  return orphan;
}

function libraryApp(storagePath: string): App {
  return new App({ port: 0, storagePath, host: '127.0.0.1', provider: false, logLevel: 'silent' });
}

describe('startup sweep of orphaned attachments', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('App.start deletes files no record references, keeping the stored attachment downloadable and foreign files', async () => {
    const storagePath = join(await makeTempDir(), 'n.yaml');
    const before = libraryApp(storagePath);
    await before.start();
    const kept = await createWithPng(`http://127.0.0.1:${before.port}`);
    await before.stop();
    const dir = attachmentDirOf(storagePath);
    const orphan = await leaveCrashDebris(dir);

    const after = libraryApp(storagePath);
    await after.start();
    const base = `http://127.0.0.1:${after.port}`;
    const files = (await readdir(dir)).sort();
    const stored = await download(base, kept);
    const fresh = await createWithPng(base);
    const freshFile = await download(base, fresh);
    const orphanRecord = await fetch(`${base}/notifications/single/${orphan}`);
    await after.stop();

    expect(files).toEqual([kept, 'README.txt'].sort());
    expect(stored).toEqual({ status: 200, body: PNG });
    expect(freshFile).toEqual({ status: 200, body: PNG });
    expect(orphanRecord.status).toBe(404);
  });

  it('GET attachment answers 404 ATTACHMENT_NOT_FOUND, not 500, when a record outlived its file', async () => {
    const storagePath = join(await makeTempDir(), 'n.yaml');
    const before = libraryApp(storagePath);
    await before.start();
    const id = await createWithPng(`http://127.0.0.1:${before.port}`);
    await before.stop();
    await unlink(join(attachmentDirOf(storagePath), id));

    const after = libraryApp(storagePath);
    await after.start();
    const base = `http://127.0.0.1:${after.port}`;
    const res = await fetch(`${base}/notifications/single/${id}/attachment`);
    const body = await res.json();
    const record = await fetch(`${base}/notifications/single/${id}`);
    const removal = await fetch(`${base}/notifications/${id}`, { method: 'DELETE' });
    await after.stop();

    expect(res.status).toBe(404);
    expect(body).toEqual({ error: `Notification ${id} has no attachment`, solution: expect.any(String), code: 'ATTACHMENT_NOT_FOUND' });
    expect(record.status).toBe(200);
    expect(removal.status).toBe(204);
  });

  it('the service (main.ts) sweeps after a kill -9 and logs the count once, never the bytes', { timeout: 30_000 }, async () => {
    const root = await mkdtemp(join(tmpdir(), 'notifications-sweep-'));
    dirs.push(root);
    const env = { STORAGE_PATH: join(root, 'notifications.yaml') };
    const first = await ServiceProcess.start({ service: 'notifications', env });
    const kept = await createWithPng(first.baseUrl);
    await first.kill();
    const dir = attachmentDirOf(env.STORAGE_PATH);
    const orphan = await leaveCrashDebris(dir);

    const second = await ServiceProcess.start({ service: 'notifications', env });
    const files = (await readdir(dir)).sort();
    const stored = await download(second.baseUrl, kept);
    await second.stop();

    expect(files).toEqual([kept, 'README.txt'].sort());
    expect(files).not.toContain(orphan);
    expect(stored).toEqual({ status: 200, body: PNG });
    const sweepLines = second.output.split('\n').filter((line) => line.includes('attachment sweep'));
    expect(sweepLines).toHaveLength(1);
    expect(JSON.parse(sweepLines[0]!)).toMatchObject({ level: 30, removed: 2, msg: 'attachment sweep: removed 2 orphaned files' });
    expect(second.output).not.toContain(PNG.toString('base64'));
  });
});
