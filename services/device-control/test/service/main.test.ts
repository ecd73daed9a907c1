import { createServer } from 'node:net';
import { ServiceProcess } from '@homeops/test-kit';
import { describe, expect, it, type TestContext } from 'vitest';

const SECRET = 'correct-horse-battery-staple';

/** Starts main, as users run it in an empty directory (no developer .env is read), and waits until it answers /health. */
async function start(env: Record<string, string>, { onTestFinished }: TestContext): Promise<ServiceProcess> {
  const service = await ServiceProcess.start({ service: 'device-control', env });
  onTestFinished(async () => void (await service.kill()));
  return service;
}

/** Starts main where it is meant to refuse to start. */
async function launch(env: Record<string, string>, { onTestFinished }: TestContext): Promise<ServiceProcess> {
  const service = await ServiceProcess.launch({ service: 'device-control', env });
  onTestFinished(async () => void (await service.kill()));
  return service;
}

// Each test starts its own process: they run side by side.
describe.concurrent(
  'src/main.ts',
  () => {
    it('runs the simulator with a loud warning when no credentials are set, serves, and stops on SIGTERM', async (context) => {
      const service = await start({}, context);
      await service.waitForOutput(new RegExp(`"port":${service.port}[^\\n]*"listening"`));
      await service.waitForOutput(/NO CLOUD CREDENTIALS/);

      const health = await fetch(`${service.baseUrl}/health`);
      const body = (await health.json()) as { backend: string };
      const exited = await service.stop('SIGTERM');

      expect(body.backend).toBe('simulator');
      expect(exited).toEqual({ code: 0, signal: null });
    });

    it('refuses to start with CLOUD_BACKEND=meross and no credentials, naming the problem', async (context) => {
      const service = await launch({ CLOUD_BACKEND: 'meross' }, context);

      expect(await service.exited).toEqual({ code: 1, signal: null });
      await service.waitForOutput(/CLOUD_BACKEND: meross needs CLOUD_EMAIL and CLOUD_PASSWORD/);
    });

    it('never prints the password when the configuration is invalid', async (context) => {
      const service = await launch({ MEROSS_PASSWORD: SECRET, CLOUD_API_URL: 'http://iotx.meross.com' }, context);

      expect(await service.exited).toEqual({ code: 1, signal: null });
      await service.waitForOutput(/CLOUD_EMAIL/);
      expect(service.output).not.toContain(SECRET);
    });
  },
  30_000,
);

// Apart from the three above, which already start three processes side by side.
describe('src/main.ts on a port in use', () => {
  it('logs one JSON fatal line naming the port, nothing on stderr, and exits with code 1 by itself', { timeout: 60_000 }, async (context) => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    context.onTestFinished(() => new Promise<void>((resolve) => holder.close(() => resolve())));
    const port = (holder.address() as { port: number }).port;
    const service = await launch({ PORT: String(port) }, context);
    let stderr = '';
    service.child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));

    expect(await service.exited).toEqual({ code: 1, signal: null });
    expect(stderr).toBe('');
    const lines = service.output
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { level: number });
    expect(lines.filter((line) => line.level >= 50)).toEqual([
      expect.objectContaining({ level: 60, port, code: 'EADDRINUSE', msg: expect.stringContaining(`port ${port} on 127.0.0.1 is already in use`) }),
    ]);
    expect(service.output).not.toMatch(/\n\s+at /);
  });
});
