import { chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, MerossEmulator, standardDevices } from '../../services/device-control/test/emulator/meross-emulator.js';
import { createTestPki } from '../../services/device-control/test/emulator/pki.js';
import { ComposeFile, type ServiceOverrides } from './compose-file.js';
import { docker, generatedApiKey, mainProcessPrivileges, mainProcessUid, timedStop, waitHealthy } from './docker-cli.js';
import { bearer, createMany, listAllIds } from './notifications-client.js';
import { seedHistory } from '../../bench/services.js';
import { freePort } from '../../bench/processes.js';

/** The image serves its dashboard: the page, and the hashed script it names with a year of cache. */
async function expectDashboard(base: string, title: string): Promise<void> {
  const page = await fetch(`${base}/`);
  const html = await page.text();
  const script = /<script type="module" crossorigin src="(\/assets\/[^"]+\.js)">/.exec(html)?.[1];
  const asset = script ? await fetch(`${base}${script}`) : undefined;

  expect({ status: page.status, title: html.includes(`<title>${title}`), script: script !== undefined }).toEqual({ status: 200, title: true, script: true });
  expect(asset?.status).toBe(200);
  expect(asset?.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
}

/**
 * The runtime and privileges the Dockerfile and compose file promise (docs/security.md, "Container"): the Node.js major
 * of ARG NODE_IMAGE; the service as node (uid 1000) with no capabilities in any set, no-new-privs; a read-only root
 * filesystem with a writable /tmp.
 */
async function expectLockedDown(container: string): Promise<void> {
  const privileges = await mainProcessPrivileges(container);
  const none = '0000000000000000';
  expect(privileges).toEqual({ uid: 1000, noNewPrivs: 1, capEff: none, capPrm: none, capBnd: none, capAmb: none });
  expect(await docker(['exec', container, 'node', '--version'])).toMatch(new RegExp(`^v${declaredNodeMajor}\\.`));
  await expect(docker(['exec', container, 'touch', '/app/probe'])).rejects.toThrow(/Read-only file system/);
  await expect(docker(['exec', '-u', 'node', container, 'touch', '/tmp/probe'])).resolves.toBe('');
}

/**
 * The README's key step on a service that generated its key: read it with `docker compose exec`, then /health without
 * it shows only status, service and version, `path` without it is a 401 in the common body, and with it a 200.
 */
async function expectKeyStep(container: string, base: string, path: string): Promise<string> {
  const key = await generatedApiKey(container);
  const health = await fetch(`${base}/health`);
  const healthBody = (await health.json()) as Record<string, unknown>;
  const refused = await fetch(`${base}${path}`);
  const allowed = await fetch(`${base}${path}`, { headers: bearer(key) });

  expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect({ status: health.status, fields: Object.keys(healthBody).sort() }).toEqual({ status: 200, fields: ['service', 'status', 'version'] });
  expect(['ok', 'degraded']).toContain(healthBody.status);
  expect({ status: refused.status, body: await refused.json() }).toEqual({
    status: 401,
    body: { error: expect.any(String), solution: expect.any(String), code: 'UNAUTHORIZED' },
  });
  expect(allowed.status).toBe(200);
  const logs = await docker(['logs', container]);
  expect(logs).toContain('/app/data/api-key');
  expect(logs).not.toContain(key);
  return key;
}

const root = resolve(import.meta.dirname, '../..');
const declaredNodeMajor = /^ARG NODE_IMAGE=node:(\d+)-/m.exec(readFileSync(join(root, 'Dockerfile'), 'utf8'))?.[1];
// A fresh host: an empty project folder, so Docker itself creates ./data/... for the bind mounts.
const projectDir = mkdtempSync(join(tmpdir(), 'homeops-compose-'));
const compose = new ComposeFile(join(root, 'docker-compose.yml'), projectDir);
const run = `t${process.pid}`;
const containers: string[] = [];
const volumes: string[] = [];
const imageSizes: Record<string, number> = {};

/** Starts a service as docker-compose.yml declares it and waits for healthy; `port` is where it answers on the host. */
async function up(service: string, suffix: string, overrides: ServiceOverrides = {}, port?: number) {
  const container = `${compose.project}-${service}-${run}-${suffix}`;
  port ??= await freePort();
  await docker(compose.runArgs(service, container, () => port, overrides));
  containers.push(container);
  await waitHealthy(container);
  return { container, base: `http://127.0.0.1:${port}` };
}

beforeAll(async () => {
  for (const service of Object.keys(compose.services)) {
    await docker(compose.buildArgs(service), 900_000);
    imageSizes[service] = Number(await docker(['image', 'inspect', '-f', '{{.Size}}', compose.image(service)]));
  }
}, 1_800_000);

afterAll(async () => {
  for (const container of containers) await docker(['rm', '-f', '-v', container]).catch(() => undefined);
  for (const volume of volumes) await docker(['volume', 'rm', '-f', volume]).catch(() => undefined);
  rmSync(projectDir, { recursive: true, force: true });
  console.log(`image sizes (MB): ${JSON.stringify(Object.fromEntries(Object.entries(imageSizes).map(([k, v]) => [k, +(v / 1e6).toFixed(1)])))}`);
}, 120_000);

describe('docker-compose.yml', () => {
  it('is valid by the Compose specification and clean by dclint', async () => {
    const { execFileSync } = await import('node:child_process');
    const dclint = join(root, 'node_modules/.bin/dclint');
    expect(() => execFileSync(dclint, ['--max-warnings', '0', '--color', 'false', join(root, 'docker-compose.yml')], { stdio: 'pipe' })).not.toThrow();
  });
});

describe.sequential('notifications on a real Docker engine', () => {
  let first: { container: string; base: string };
  let key: string;

  it(`turns healthy on a bind mount that Docker creates as root, runs Node.js ${declaredNodeMajor} as node with no capabilities and no-new-privs on a read-only root`, async () => {
    first = await up('notifications', 'bind');

    await expectLockedDown(first.container);
    expect(statSync(join(projectDir, 'data/notifications/notifications.yaml.lock')).uid).toBe(1000);
  });

  it("generates an API key on first start (0600, for node) and requires it: the README's key step, create, list and the dashboard", async () => {
    key = await expectKeyStep(first.container, first.base, '/notifications/docker');
    const refused = await fetch(`${first.base}/notifications`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ recipient: 'docker', message: 'without the key' }),
    });

    const [id] = await createMany(first.base, key, 1);

    expect(refused.status).toBe(401);
    expect(await listAllIds(first.base, key)).toEqual([id]);
    const file = statSync(join(projectDir, 'data/notifications/api-key'));
    expect({ uid: file.uid, mode: file.mode & 0o777 }).toEqual({ uid: 1000, mode: 0o600 });
    await expectDashboard(first.base, 'Inbox');
  });

  it('keeps a notification and its key across docker restart', async () => {
    const [id] = await createMany(first.base, key, 1);

    await docker(['restart', first.container], 60_000);
    await waitHealthy(first.container);

    const res = await fetch(`${first.base}/notifications/single/${id}`, { headers: bearer(key) });
    expect(res.status).toBe(200);
    expect(await generatedApiKey(first.container)).toBe(key);
  }, 120_000);

  it('stops cleanly within the grace period after a load of creates, and a new container has every one and the same key', async () => {
    const ids = [...(await listAllIds(first.base, key)), ...(await createMany(first.base, key, 3000, 16))];

    const stop = await timedStop(first.container, 8_000);

    console.log(`docker stop after 3000 creates: ${stop.ms.toFixed(0)} ms`);
    expect(stop.exitCode, stop.logs).toBe(0);
    expect(stop.logs).toMatch(/"msg":"stopped"/);
    await docker(['rm', first.container]);
    const again = await up('notifications', 'bind-again');
    const listed = await listAllIds(again.base, key);
    expect(await generatedApiKey(again.container)).toBe(key);
    expect(listed).toHaveLength(ids.length);
    expect(new Set(listed)).toEqual(new Set(ids));
  }, 300_000);

  it('stops within 8 s with 100,000 stored right after a load of creates, on files a root process left', async () => {
    const dataDir = join(projectDir, 'big');
    const seedMs = await seedHistory(join(dataDir, 'notifications.yaml'), 100_000, projectDir);
    const big = await up('notifications', 'big', { volumes: { '/app/data': dataDir } });
    const bigKey = await generatedApiKey(big.container);
    await createMany(big.base, bigKey, 2000, 16);

    const stop = await timedStop(big.container, 8_000);

    console.log(`seeded 100,000 in ${seedMs} ms; docker stop after 2000 more creates: ${stop.ms.toFixed(0)} ms`);
    expect(stop.exitCode, stop.logs).toBe(0);
    await docker(['start', big.container]);
    await waitHealthy(big.container);
    const health = (await (await fetch(`${big.base}/health`, { headers: bearer(bigKey) })).json()) as { storage: { records: number } };
    expect(health.storage.records).toBe(102_000);
    await timedStop(big.container);
  }, 300_000);

  it('works the same on a named volume, also when the container is killed and recreated', async () => {
    const volume = `${compose.project}_notifications-${run}`;
    volumes.push(volume);
    const onVolume = await up('notifications', 'volume', { volumes: { '/app/data': volume } });
    const volumeKey = await generatedApiKey(onVolume.container);
    const [id] = await createMany(onVolume.base, volumeKey, 1);
    await docker(['rm', '-f', onVolume.container]);

    const again = await up('notifications', 'volume-again', { volumes: { '/app/data': volume } });

    expect(await mainProcessUid(again.container)).toBe(1000);
    expect(await listAllIds(again.base, volumeKey)).toEqual([id]);
  }, 180_000);

  // Why the compose files keep DAC_READ_SEARCH: without it root cannot walk into a 0700 folder it does not own, the
  // entrypoint's find fails and the container never starts.
  it('takes over a restored data folder whose 0700 folders and 0600 files belong to another user', async () => {
    const dataDir = join(projectDir, 'restored');
    mkdirSync(join(dataDir, 'backup'), { recursive: true, mode: 0o700 });
    writeFileSync(join(dataDir, 'backup/old.yaml'), 'old: true\n', { mode: 0o600 });
    for (const path of [dataDir, join(dataDir, 'backup'), join(dataDir, 'backup/old.yaml')]) chownSync(path, 4321, 4321);

    const restored = await up('notifications', 'restored', { volumes: { '/app/data': dataDir } });

    await expectLockedDown(restored.container);
    expect([dataDir, join(dataDir, 'backup'), join(dataDir, 'backup/old.yaml')].map((path) => statSync(path).uid)).toEqual([1000, 1000, 1000]);
    await timedStop(restored.container);
  }, 120_000);
});

describe.sequential('device-control as docker-compose.yml declares it, before any .env (the simulator)', () => {
  it('runs locked down, generates its key and requires it; /devices with the key and the dashboard work', async () => {
    const declared = await up('device-control', 'declared');

    await expectLockedDown(declared.container);
    const key = await expectKeyStep(declared.container, declared.base, '/devices');
    const devices = (await (await fetch(`${declared.base}/devices`, { headers: bearer(key) })).json()) as unknown[];

    expect(devices.length).toBeGreaterThan(0);
    const file = statSync(join(projectDir, 'data/device-control/api-key'));
    expect({ uid: file.uid, mode: file.mode & 0o777 }).toEqual({ uid: 1000, mode: 0o600 });
    await expectDashboard(declared.base, 'Devices');
    const stop = await timedStop(declared.container);
    expect(stop.exitCode, stop.logs).toBe(0);
  }, 120_000);
});

describe.sequential('device-control on a real Docker engine against the Meross emulator (host network)', () => {
  const pki = createTestPki();
  const account = createAccount();
  let emulator: MerossEmulator;
  let port: number;
  let service: { container: string; base: string };

  beforeAll(async () => {
    emulator = await MerossEmulator.start({ pki, account, devices: standardDevices() });
    port = await freePort();
    // What a user writes into .env after `cp .env.example .env`.
    writeFileSync(join(projectDir, '.env'), `CLOUD_EMAIL=${account.email}\nCLOUD_PASSWORD=${account.password}\nCLOUD_API_URL=${emulator.apiUrl}\n`);
  });

  afterAll(async () => {
    await emulator.stop();
    pki.remove();
    rmSync(join(projectDir, '.env'), { force: true });
  });

  // Host network, to reach the emulator on the host's loopback: so HOST stays loopback (no key needed, as a bare start),
  // never the host's other interfaces.
  const overrides = (): ServiceOverrides => ({
    hostNetwork: true,
    environment: { DEVICE_CONTROL_PORT: String(port), HOST: '127.0.0.1', NODE_EXTRA_CA_CERTS: '/run/emulator-ca.pem' },
    extraVolumes: [`${pki.caFile}:/run/emulator-ca.pem:ro`],
  });

  it('signs in once and saves its token on the host bind mount', async () => {
    service = await up('device-control', 'emulated', overrides(), port);
    const health = (await (await fetch(`${service.base}/health`)).json()) as { status: string };

    expect(health.status).toBe('ok');
    await expectDashboard(service.base, 'Devices');
    expect(emulator.api.calls.signIn).toBe(1);
    const token = statSync(join(projectDir, 'data/device-control/cloud-token.json'));
    expect(token.uid).toBe(1000);
    expect(token.mode & 0o777).toBe(0o600);
  }, 120_000);

  it('reuses the saved token across docker restart: still exactly one sign-in', async () => {
    await docker(['restart', service.container], 60_000);
    await waitHealthy(service.container);

    const devices = (await (await fetch(`${service.base}/devices`)).json()) as unknown[];
    expect(devices).toHaveLength(standardDevices().length);
    expect(emulator.api.calls.signIn).toBe(1);
    const stop = await timedStop(service.container);
    expect(stop.exitCode, stop.logs).toBe(0);
  }, 120_000);

  it('stays up but reports degraded, naming the token file, when started as a user who cannot write its data', async () => {
    const dataDir = join(projectDir, 'data/device-control-other-user');
    const other = await up('device-control', 'other-user', { ...overrides(), user: '4321:4321', volumes: { '/app/data': dataDir } }, port);

    const health = (await (await fetch(`${other.base}/health`)).json()) as { status: string; problems: string[]; cloud: { tokenStore: unknown } };

    expect(await mainProcessUid(other.container)).toBe(4321);
    expect(health.status).toBe('degraded');
    expect(health.cloud.tokenStore).toMatchObject({ file: '/app/data/cloud-token.json', writable: false, error: expect.stringMatching(/^EACCES/) });
    expect(health.problems.join(' ')).toContain('session token cannot be saved');
    expect(JSON.stringify(health)).not.toContain(account.password);
    await timedStop(other.container);
  }, 120_000);
});
