import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileTokenStore, SCOPES, systemClock, TokenRegistry, type Scope } from '../../packages/common/src/index.js';
import { freePort, ServiceProcess } from '../../packages/test-kit/src/index.js';

// An install upgraded under `pnpm start`: ./data/tokens.json holds both services' tokens, as the versions that shared
// it left it. Each service takes its part at its first start and keeps it apart from then on.
const KEY = randomBytes(24).toString('base64url');
type Service = 'device-control' | 'notifications';
const cwd = mkdtempSync(join(tmpdir(), 'pnpm-start-upgrade-'));
const running: Partial<Record<Service, ServiceProcess>> = {};
const ports: Record<Service, number> = { 'device-control': 0, notifications: 0 };

afterAll(async () => {
  await Promise.all(Object.values(running).map((service) => service?.stop()));
  rmSync(cwd, { recursive: true, force: true });
}, 30_000);

async function start(service: Service): Promise<void> {
  const env = { API_KEY: KEY, CLOUD_BACKEND: 'simulator', PORT: String(ports[service]) };
  running[service] = await ServiceProcess.start({ service, cwd, env, readyTimeoutMs: 40_000 });
}

async function status(service: Service, secret: string, method = 'GET', path = '/auth/me'): Promise<number> {
  return (await fetch(`http://127.0.0.1:${ports[service]}${path}`, { method, headers: { authorization: `Bearer ${secret}` } })).status;
}

describe('both services upgraded from the shared tokens.json under pnpm start', () => {
  it("each keeps its own tokens and the admin ones, refuses the other service's, and keeps a revocation", { timeout: 180_000 }, async () => {
    const legacy = join(cwd, 'data', 'tokens.json');
    const maker = new TokenRegistry({ store: new FileTokenStore(legacy), clock: systemClock, scopes: SCOPES });
    await maker.open();
    const make = async (label: string, scopes: Scope[]) => maker.create({ label, scopes: scopes.map((scope) => ({ scope })), expiresAt: null });
    const lamp = await make('lamp', ['devices:control']);
    const phone = await make('phone', ['notifications:send']);
    const admin = await make('admin', ['admin']);
    await maker.close();
    const before = readFileSync(legacy, 'utf8');
    ports['device-control'] = await freePort();
    ports.notifications = await freePort();
    await Promise.all([start('device-control'), start('notifications')]);

    expect([await status('device-control', lamp.secret), await status('notifications', lamp.secret)]).toEqual([200, 401]);
    expect([await status('device-control', phone.secret), await status('notifications', phone.secret)]).toEqual([401, 200]);
    expect([await status('device-control', admin.secret), await status('notifications', admin.secret)]).toEqual([200, 200]);

    expect(await status('device-control', admin.secret, 'DELETE', `/tokens/${lamp.token.id}`)).toBe(204);
    let firstStarts = '';
    for (const service of ['notifications', 'device-control'] as const) {
      await running[service]!.stop();
      firstStarts += running[service]!.output;
      await start(service);
    }

    expect([await status('device-control', lamp.secret), await status('notifications', lamp.secret)]).toEqual([401, 401]);
    expect([await status('device-control', admin.secret), await status('notifications', phone.secret)]).toEqual([200, 200]);
    expect(readFileSync(legacy, 'utf8')).toBe(before);
    // Each says once where its tokens now are: device-control took the lamp's and the admin's, notifications the
    // phone's and the admin's; the restarts split nothing again.
    expect(firstStarts.match(/took 2 of the 3 tokens/g)).toHaveLength(2);
    expect(running['device-control']!.output + running.notifications!.output).not.toContain('took');
  });
});
