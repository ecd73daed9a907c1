import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveAccess } from '../src/index.js';
import { captureLogger } from './helpers.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'access-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const settings = (overrides: Partial<Parameters<typeof resolveAccess>[0]> = {}) => {
  const log = captureLogger();
  return {
    log,
    settings: { host: undefined, apiKey: undefined, apiKeyFile: join(dir, 'data', 'api-key'), allowOpenLan: false, logger: log.logger, ...overrides },
  };
};

describe('resolveAccess', () => {
  it('binds loopback only when no key is set, and keeps no key file', async () => {
    const { settings: s, log } = settings();
    expect(await resolveAccess(s)).toEqual({ host: '127.0.0.1', apiKey: undefined, openLan: false });
    await expect(stat(s.apiKeyFile)).rejects.toThrow();
    expect(log.text()).toContain('API_KEY is not set: listening on 127.0.0.1 only');
  });

  it('binds every interface when a key is set and HOST is not', async () => {
    expect(await resolveAccess(settings({ apiKey: 'a'.repeat(32) }).settings)).toEqual({ host: '0.0.0.0', apiKey: 'a'.repeat(32), openLan: false });
  });

  it('generates a key for a LAN address, keeps it 0600 in a 0700 folder, logs where but never the key, and reuses it', async () => {
    const { settings: s, log } = settings({ host: '0.0.0.0' });
    const first = await resolveAccess(s);
    expect(first.apiKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await stat(s.apiKeyFile)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'data'))).mode & 0o777).toBe(0o700);
    expect(log.text()).toContain(`cat ${s.apiKeyFile}`);
    expect(log.text()).not.toContain(first.apiKey);
    const again = await resolveAccess(settings({ host: '0.0.0.0' }).settings);
    expect(again.apiKey).toBe(first.apiKey);
    expect((await readFile(s.apiKeyFile, 'utf8')).trim()).toBe(first.apiKey);
  });

  it('gives two processes starting together the same key', async () => {
    const [a, b] = await Promise.all([resolveAccess(settings({ host: '192.168.1.5' }).settings), resolveAccess(settings({ host: '192.168.1.5' }).settings)]);
    expect(a.apiKey).toBe(b.apiKey);
  });

  it('refuses to start on a key file that holds something too short', async () => {
    const { settings: s } = settings({ host: '0.0.0.0', apiKeyFile: join(dir, 'short') });
    await writeFile(s.apiKeyFile, 'secret\n');
    await expect(resolveAccess(s)).rejects.toThrow(/32 or more characters/);
  });

  it('runs open on the LAN only when ALLOW_OPEN_LAN says so, and says so', async () => {
    const { settings: s, log } = settings({ host: '0.0.0.0', allowOpenLan: true });
    expect(await resolveAccess(s)).toEqual({ host: '0.0.0.0', apiKey: undefined, openLan: true });
    expect(log.text()).toContain('NO API key');
    expect((await resolveAccess(settings({ host: '127.0.0.1', allowOpenLan: true }).settings)).openLan).toBe(false);
  });
});
