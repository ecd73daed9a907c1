import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, sendRaw, ServiceProcess } from '@homeops/test-kit';

// In-process suites cannot see a crash (vitest catches it); this one runs the service as production does.
describe('notifications process under malformed uploads (child process)', () => {
  let dir: string;
  let service: ServiceProcess;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'notifications-survives-'));
    service = await ServiceProcess.start({ service: 'notifications', env: { STORAGE_PATH: join(dir, 'notifications.yaml') } });
  }, 20_000);

  afterAll(async () => {
    await service?.kill();
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
    // The process answers the next request: whatever the cut upload set off has run by then.
    const health = await sendRaw(service.port, { method: 'GET', target: '/health' }).catch((error: unknown) => ({ status: 0, error }));

    expect(service.running, `the service exited:\n${service.output.slice(-1500)}`).toBe(true);
    expect(res.status).toBe(400);
    if ('headers' in res) expectErrorBody(res, 'POST /notifications (unterminated multipart file part)');
    expect(health.status).toBe(200);
  });

  it.each(['Content-Length', 'chunked'])(
    'answers JSON nested 60,000 deep with a byte that is not UTF-8 (%s, over 64 KiB) with 400 and keeps running',
    async (framing) => {
      const body = Buffer.concat([
        Buffer.from(`{"recipient":"ops","message":"m","x":${'['.repeat(60_000)}"`),
        Buffer.from([0xff]),
        Buffer.from(`"${']'.repeat(60_000)}}`),
      ]);
      const wire = framing === 'chunked' ? Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')]) : body;
      const headers: Array<[string, string]> = [
        ['Content-Type', 'application/json'],
        ...(framing === 'chunked' ? [['Transfer-Encoding', 'chunked'] as [string, string]] : []),
      ];

      const res = await sendRaw(service.port, { method: 'POST', target: '/notifications', headers, body: wire }, 10_000).catch((error: unknown) => ({
        status: 0,
        error,
      }));
      const health = await sendRaw(service.port, { method: 'GET', target: '/health' }).catch((error: unknown) => ({ status: 0, error }));

      expect(service.running, `the service exited:\n${service.output.slice(-1500)}`).toBe(true);
      expect(res.status).toBe(400);
      if ('headers' in res) expect(JSON.parse(res.body.toString('utf8'))).toMatchObject({ code: 'JSON_TOO_DEEP' });
      expect(health.status).toBe(200);
    },
  );
});
