import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventually } from '@homeops/test-kit';
import { createAccount, MerossEmulator, standardDevices, type EmulatedAccount } from '../emulator/meross-emulator.js';
import { createTestPki, type TestPki } from '../emulator/pki.js';
import { EmulatedService } from './service-process.js';

const PLUG = 'plug0000000000000000000000000001';

interface DeviceBody {
  uuid: string;
  controllable: boolean;
}

describe('device-control end to end: the cloud session across restarts, outages and redirects', { timeout: 40_000 }, () => {
  let pki: TestPki;
  let account: EmulatedAccount;
  let emulator: MerossEmulator;
  let workDir: string;
  const services: EmulatedService[] = [];
  const emulators: MerossEmulator[] = [];

  beforeAll(() => {
    pki = createTestPki();
  });
  afterAll(() => pki.remove());

  beforeEach(async () => {
    account = createAccount();
    emulator = await startEmulator();
    workDir = mkdtempSync(join(tmpdir(), 'device-control-session-'));
  });

  afterEach(async () => {
    await Promise.all(services.splice(0).map((s) => s.stop()));
    await Promise.all(emulators.splice(0).map((e) => e.stop()));
    rmSync(workDir, { recursive: true, force: true });
  });

  async function startEmulator(): Promise<MerossEmulator> {
    const started = await MerossEmulator.start({ pki, account, devices: standardDevices() });
    emulators.push(started);
    return started;
  }

  async function startService(apiUrl = emulator.apiUrl, env: Record<string, string> = {}): Promise<EmulatedService> {
    const service = await EmulatedService.start({ apiUrl, account, caFile: pki.caFile, workDir, env });
    services.push(service);
    return service;
  }

  async function controllable(service: EmulatedService, uuid: string, timeoutMs = 10_000): Promise<void> {
    await eventually(async () => ((await service.request('GET', '/devices')).body as DeviceBody[]).find((d) => d.uuid === uuid)?.controllable, {
      what: `${uuid} to be controllable`,
      timeoutMs,
    });
  }

  it('reuses the saved token after a restart: no second sign-in', async () => {
    const first = await startService();
    await controllable(first, PLUG);
    expect(await first.stop()).toEqual({ code: 0, signal: null });

    const second = await startService();
    await controllable(second, PLUG);
    const toggled = await second.request('POST', `/devices/${PLUG}/toggle`, { channel: 0 });

    expect(toggled.status).toBe(200);
    expect(emulator.api.calls.signIn).toBe(1);
    expect(emulator.api.calls.rejectedToken).toBe(0);
    expect(statSync(join(workDir, 'data', 'cloud-token.json')).mode & 0o777).toBe(0o600);
  });

  it('is degraded, naming the file and the error, when the session token cannot be saved', async () => {
    // A folder that is a regular file: no write gets through, not even as root.
    writeFileSync(join(workDir, 'not-a-folder'), '');
    const tokenFile = join(workDir, 'not-a-folder', 'cloud-token.json');
    const service = await startService(emulator.apiUrl, { CLOUD_TOKEN_FILE: tokenFile });
    await controllable(service, PLUG);

    const health = await service.request('GET', '/health');

    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({
      status: 'degraded',
      cloud: { state: 'connected', tokenStore: { file: tokenFile, writable: false, error: expect.stringMatching(/^E[A-Z]+: .*not-a-folder/) } },
    });
    expect((health.body as { problems: string[] }).problems).toEqual([expect.stringContaining(`session token cannot be saved to ${tokenFile}`)]);
    const text = JSON.stringify(health.body) + service.output;
    for (const secret of [account.password, account.key]) expect(text).not.toContain(secret);
    expect(service.output).toContain('the session token cannot be saved');
  });

  it('logs in exactly once again when the cloud revokes the token', async () => {
    const service = await startService();
    await controllable(service, PLUG);
    emulator.api.revokeTokens();

    const firstSync = await service.request('POST', '/devices/sync');
    // A second sync this soon is refused (CLOUD_SYNC_MIN_GAP_SECONDS); a toggle then uses the new session.
    const secondSync = await service.request('POST', '/devices/sync');
    const toggled = await service.request('POST', `/devices/${PLUG}/toggle`, { channel: 0 });

    expect(firstSync.status).toBe(200);
    expect(firstSync.body).toMatchObject({ total: 4, added: 0, removed: 0 });
    expect(secondSync.status).toBe(429);
    expect(toggled.status).toBe(200);
    expect(emulator.api.calls.rejectedToken).toBe(1);
    expect(emulator.api.calls.signIn).toBe(2);
  });

  it('answers 503 with Retry-After while the cloud API is down at startup, then recovers by itself', async () => {
    emulator.api.mode = 'unavailable';
    const service = await startService();
    await eventually(
      async () => ((await service.request('GET', '/health')).body as { cloud: { state: string } }).cloud.state === 'backing-off',
      'the session to back off',
    );

    const sync = await service.request('POST', '/devices/sync');
    const health = await service.request('GET', '/health');
    emulator.api.mode = 'up';
    await controllable(service, PLUG, 20_000);

    expect(sync.status).toBe(503);
    expect(Number(sync.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'degraded', backend: 'meross', cloud: { state: 'backing-off' } });
    expect(((await service.request('GET', '/health')).body as { status: string }).status).toBe('ok');
    expect(emulator.api.calls.signIn).toBe(1);
  });

  it('reconnects to the broker after it restarts and switches again', async () => {
    const service = await startService();
    await controllable(service, PLUG);

    await emulator.restartBroker(300);
    await eventually(
      async () => ((await service.request('GET', '/devices')).body as DeviceBody[]).find((d) => d.uuid === PLUG)?.controllable === false,
      'the command channel to drop',
    );
    await controllable(service, PLUG, 20_000);
    const toggled = await service.request('POST', `/devices/${PLUG}/toggle`, { channel: 0 });

    expect(toggled.status).toBe(200);
    expect(emulator.device(PLUG).isOn(0)).toBe(true);
  });

  it('follows a 1030 region redirect: devices listed and switched in the other region', async () => {
    const region = await startEmulator();
    emulator.api.redirect = { domain: region.apiUrl, mqttDomain: region.host };
    const service = await startService();
    await controllable(service, PLUG);

    const toggled = await service.request('POST', `/devices/${PLUG}/toggle`, { channel: 0 });

    expect(toggled.status).toBe(200);
    expect(region.device(PLUG).isOn(0)).toBe(true);
    expect(emulator.device(PLUG).isOn(0)).toBe(false);
    expect(region.api.calls.signIn).toBe(1);
    expect(emulator.api.calls.devList).toBe(0);
  });

  it('keeps serving when the region redirect comes without data (the library would throw)', async () => {
    emulator.api.redirect = 'without-data';
    const service = await startService();
    await eventually(
      async () => ((await service.request('GET', '/health')).body as { cloud: { lastError: { code: unknown } | null } }).cloud.lastError?.code === 1030,
      'the redirect failure in /health',
    );

    const sync = await service.request('POST', '/devices/sync');

    expect(sync.status).toBe(503);
    expect(service.running).toBe(true);
  }, 30_000);
});
