import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createLogger, ManualClock, type Clock } from '@homeops/common';
import { describe, expect, it } from 'vitest';
import { eventually } from '@homeops/test-kit';
import { FileAttachmentStore } from '../../src/adapters/storage/file-attachment.store.js';
import { YamlNotificationRepository } from '../../src/adapters/storage/yaml-notification.repository.js';
import { attachmentDirOf } from '../../src/build-storage.js';
import { parseConfig } from '../../src/config.js';
import type { NotificationRecord } from '../../src/domain/notification.js';
import { startNotifications } from '../../src/compose.js';
import { FakePushProvider, retryable } from '../fakes/fake-push.provider.js';
import { makeTempDir, silentLogger } from '../support/test-app.js';

function capturingLogger() {
  const lines: Array<{ level: number; msg: string }> = [];
  const logger = createLogger({ service: 'test', level: 'info', destination: { write: (line: string) => void lines.push(JSON.parse(line)) } });
  return { logger, lines };
}

async function start(storagePath: string, provider: FakePushProvider, logger = silentLogger, clock?: Clock) {
  const config = parseConfig({ PORT: '0', HOST: '127.0.0.1', STORAGE_PATH: storagePath, DELIVERY_RETRY_MIN_MS: '40' });
  const adapters = {
    repository: new YamlNotificationRepository(storagePath),
    attachments: new FileAttachmentStore(attachmentDirOf(storagePath)),
    provider,
    ...(clock ? { clock } : {}),
  };
  const service = await startNotifications(config, { logger, ...adapters }, { handleSignals: false });
  return { ...service, base: `http://127.0.0.1:${service.port}`, repository: adapters.repository };
}

const post = (base: string, body: object) =>
  fetch(`${base}/notifications`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('startNotifications', () => {
  it('resumes a pending delivery after a restart and sends it exactly once', { timeout: 15_000 }, async () => {
    const storagePath = join(await makeTempDir(), 'notifications.yaml');
    // One clock across both runs: retries wait for it, never for the wall clock.
    const clock = new ManualClock();
    const first = new FakePushProvider().alwaysAnswer(retryable());
    const before = await start(storagePath, first, silentLogger, clock);
    const created = (await (await post(before.base, { recipient: 'ops', message: 'm' })).json()) as NotificationRecord;
    expect(created.delivery).toMatchObject({ status: 'pending', attempts: 1 });
    await before.stop();
    expect(first.sent).toHaveLength(1);

    const second = new FakePushProvider();
    const after = await start(storagePath, second, silentLogger, clock);
    await eventually(async () => {
      clock.advance(100);
      return (await after.repository.get(created.id))?.delivery.status === 'sent';
    }, 'the resumed delivery');
    expect((await after.repository.get(created.id))?.delivery.attempts).toBe(2);
    // A day later on the clock, and the stop lets any attempt that set off finish: still the one send.
    clock.advance(86_400_000);
    await after.stop();
    expect(second.sent).toHaveLength(1);
    expect(first.sent).toHaveLength(1);
  });

  it('keeps read status and records across a restart', async () => {
    const storagePath = join(await makeTempDir(), 'notifications.yaml');
    const a = await start(storagePath, new FakePushProvider(false));
    const { id } = (await (await post(a.base, { recipient: 'ops', message: 'm' })).json()) as NotificationRecord;
    await fetch(`${a.base}/notifications/${id}/read`, { method: 'PATCH' });
    await a.stop();
    const b = await start(storagePath, new FakePushProvider(false));
    const again = await (await fetch(`${b.base}/notifications/single/${id}`)).json();
    expect(again).toMatchObject({ id, read: true, readAt: expect.any(String), delivery: { status: 'skipped' } });
    await b.stop();
  });

  it('warns loudly at startup when delivery is off', async () => {
    const { logger, lines } = capturingLogger();
    const service = await start(join(await makeTempDir(), 'n.yaml'), new FakePushProvider(false), logger);
    await service.stop();
    expect(lines.find((l) => l.level === 40 && /PUSH DELIVERY IS OFF/.test(l.msg))).toBeDefined();
  });

  it('refuses to start on a corrupt history and leaves the file untouched', async () => {
    const storagePath = join(await makeTempDir(), 'notifications.yaml');
    await writeFile(storagePath, 'notifications: [ {id: 1\n');
    await expect(start(storagePath, new FakePushProvider(false))).rejects.toThrow(/notifications\.yaml/);
    const { readFile } = await import('node:fs/promises');
    expect(await readFile(storagePath, 'utf8')).toBe('notifications: [ {id: 1\n');
  });

  it('refuses a second service on the same history', async () => {
    const storagePath = join(await makeTempDir(), 'notifications.yaml');
    const a = await start(storagePath, new FakePushProvider(false));
    await expect(start(storagePath, new FakePushProvider(false))).rejects.toThrow();
    await a.stop();
  });
});

describe('RunningService.stop', () => {
  it('lets a create in flight finish and persist before the history closes', { timeout: 15_000 }, async () => {
    const storagePath = join(await makeTempDir(), 'notifications.yaml');
    let accept!: (receipt: { request: string }) => void;
    const provider = new FakePushProvider().willAnswer(new Promise((resolve) => (accept = resolve)));
    const service = await start(storagePath, provider);
    const response = post(service.base, { recipient: 'ops', message: 'in flight' });
    await eventually(() => provider.sent.length === 1);
    const stopped = service.stop();
    accept({ request: 'late-but-fine' });
    const res = await response;
    await stopped;
    expect(res.status).toBe(201);
    const reopened = new YamlNotificationRepository(storagePath);
    await reopened.open();
    const [record] = (await reopened.list('ops', { limit: 10 })).items;
    await reopened.close();
    expect(record?.delivery).toMatchObject({ status: 'sent', request: 'late-but-fine' });
  });
});
