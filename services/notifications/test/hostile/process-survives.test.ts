import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServiceProcess, type ServiceProcess } from '../faults/service-process.js';
import { expectErrorBody, sendRaw } from '@homeops/test-kit';

// In-process suites cannot see a crash (vitest catches it); this one runs the service as production does.
describe('notifications process under malformed uploads (child process)', () => {
  let dir: string;
  let service: ServiceProcess;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'notifications-survives-'));
    service = await startServiceProcess({ STORAGE_PATH: join(dir, 'notifications.yaml') });
  }, 20_000);

  afterAll(async () => {
    await service?.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  it('answers a multipart body that ends inside a file part with 400 and keeps running', async () => {
    const body = '--xyz\r\nContent-Disposition: form-data; name="a"; filename="a.png"\r\nContent-Type: image/png\r\n\r\nabc\r\n';
    const res = await sendRaw(service.port, {
      method: 'POST',
      target: '/notifications',
      headers: [['Content-Type', 'multipart/form-data; boundary=xyz']],
      body,
    }).catch((error: unknown) => ({ status: 0, error }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(service.child.exitCode, `the service exited:\n${service.output().slice(-1500)}`).toBeNull();
    expect(res.status).toBe(400);
    if ('headers' in res) expectErrorBody(res, 'POST /notifications (unterminated multipart file part)');
    const health = await sendRaw(service.port, { method: 'GET', target: '/health' });
    expect(health.status).toBe(200);
  });
});
