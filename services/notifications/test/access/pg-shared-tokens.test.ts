import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, ServiceProcess } from '@homeops/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { freshDatabase } from '../support/postgres-database.js';

// Two notification instances on one PostgreSQL history and one data folder, as docker-compose.postgres.yml runs them:
// both keep their tokens in the one shared file.
const KEY = randomBytes(24).toString('base64url');
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

async function start(env: Record<string, string>): Promise<ServiceProcess> {
  const service = await ServiceProcess.start({ service: 'notifications', env, readyTimeoutMs: 30_000 });
  cleanups.push(() => service.stop());
  return service;
}

async function call(service: ServiceProcess, bearer: string, method: string, path: string, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${bearer}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return fetch(`${service.baseUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
}

async function makeToken(service: ServiceProcess, label: string): Promise<{ id: string; secret: string }> {
  const res = await call(service, KEY, 'POST', '/tokens', { label, scopes: [{ scope: 'notifications:send', recipients: ['family'] }] });
  expect(res.status).toBe(201);
  const { token, secret } = (await res.json()) as { token: { id: string }; secret: string };
  return { id: token.id, secret };
}

const status = async (service: ServiceProcess, secret: string) => (await call(service, secret, 'GET', '/auth/me')).status;

describe('two instances on one data folder and one PostgreSQL', () => {
  it('share their tokens: made at either works at both, revoked at either is refused by both and stays revoked', { timeout: 120_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'notifications-shared-tokens-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    // Many 401s while waiting: more than the default throttle lets through.
    const env = {
      API_KEY: KEY,
      AUTH_MAX_FAILURES_PER_MINUTE: '1000',
      STORAGE_URL: await freshDatabase(),
      STORAGE_PATH: join(dir, 'data', 'notifications.yaml'),
    };
    const one = await start(env);
    const two = await start(env);

    // Made on both sides before either has seen the other's: the second save merges, nothing is lost.
    const [a, b] = await Promise.all([makeToken(one, 'a'), makeToken(two, 'b')]);
    const c = await makeToken(one, 'c');
    await eventually(async () => (await status(two, a.secret)) === 200 && (await status(two, c.secret)) === 200 && (await status(one, b.secret)) === 200, {
      what: 'each instance to take in the tokens the other made',
      timeoutMs: 10_000,
    });

    expect((await call(two, KEY, 'DELETE', `/tokens/${a.id}`)).status).toBe(204);
    await eventually(async () => (await status(one, a.secret)) === 401, { what: 'the revocation to reach the other instance', timeoutMs: 10_000 });
    // A last-use write at the instance that had it does not bring it back.
    expect(await status(one, c.secret)).toBe(200);
    await one.stop();
    await two.stop();

    const again = [await start(env), await start(env)];
    for (const service of again) {
      expect(await status(service, a.secret)).toBe(401);
      expect(await status(service, b.secret)).toBe(200);
      expect(await status(service, c.secret)).toBe(200);
    }
    expect((await readdir(join(dir, 'data'))).filter((name) => name.includes('tokens'))).toEqual(['notifications-tokens.json']);
  });
});
