import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mergeTokens } from '../src/tokens/token-merge.js';
import {
  createFileExclusively,
  FileTokenStore,
  ManualClock,
  openServiceTokens,
  TokenRegistry,
  tokensOfService,
  type Scope,
  type StoredToken,
} from '../src/index.js';
import { captureLogger } from './helpers.js';

const DEVICE: readonly Scope[] = ['admin', 'metrics', 'devices:read', 'devices:control'];
const NOTIFY: readonly Scope[] = ['admin', 'metrics', 'notifications:send', 'notifications:read'];
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'token-files-'));
  dirs.push(dir);
  return dir;
};
const clockAt = () => new ManualClock(Date.parse('2026-11-26T08:00:00Z'));

function token(id: string, scopes: Scope[], overrides: Partial<StoredToken> = {}): StoredToken {
  return {
    id: id.padStart(12, '0'),
    label: id,
    hash: id.padStart(64, '0'),
    scopes: scopes.map((scope) => ({ scope })),
    createdAt: '2026-11-01T00:00:00.000Z',
    expiresAt: null,
    lastUsedAt: null,
    ...overrides,
  };
}

/** A shared tokens.json as both services left it before each kept its own, holding the secrets' tokens. */
async function legacyFolder() {
  const dir = tempDir();
  const clock = clockAt();
  // Made with one registry knowing every scope: what the old shared file could hold.
  const maker = new TokenRegistry({ store: new FileTokenStore(join(dir, 'tokens.json')), clock, scopes: [...new Set([...DEVICE, ...NOTIFY])] });
  await maker.open();
  const make = async (label: string, scopes: Scope[]) => (await maker.create({ label, scopes: scopes.map((scope) => ({ scope })), expiresAt: null })).secret;
  const secrets = {
    lamp: await make('lamp', ['devices:control']),
    phone: await make('phone', ['notifications:send']),
    admin: await make('admin', ['admin']),
    scraper: await make('scraper', ['metrics']),
    both: await make('both', ['devices:read', 'notifications:read']),
  };
  await maker.close();
  return { dir, clock, secrets, shared: readFileSync(join(dir, 'tokens.json'), 'utf8') };
}

describe('openServiceTokens', () => {
  it("splits the shared tokens.json once: each service keeps its own tokens, the admin's and the scraper's, nothing else", async () => {
    const { dir, clock, secrets, shared } = await legacyFolder();
    const log = captureLogger();
    const open = (service: string, scopes: readonly Scope[]) =>
      openServiceTokens({ file: undefined, dataDir: dir, service, scopes, clock, logger: log.logger });

    const devices = await open('device-control', DEVICE);
    const notifications = await open('notifications', NOTIFY);

    expect(devices.authenticate(secrets.lamp)?.has('devices:control')).toBe(true);
    expect(notifications.authenticate(secrets.lamp)).toBeUndefined();
    expect(notifications.authenticate(secrets.phone)?.has('notifications:send')).toBe(true);
    expect(devices.authenticate(secrets.phone)).toBeUndefined();
    for (const registry of [devices, notifications]) {
      expect(registry.authenticate(secrets.admin)?.has('admin')).toBe(true);
      expect(registry.authenticate(secrets.scraper)?.has('metrics')).toBe(true);
    }
    expect(devices.authenticate(secrets.both)?.scopes).toEqual([{ scope: 'devices:read' }]);
    expect(notifications.authenticate(secrets.both)?.scopes).toEqual([{ scope: 'notifications:read' }]);
    expect(readFileSync(join(dir, 'tokens.json'), 'utf8')).toBe(shared);
    for (const file of ['device-control-tokens.json', 'notifications-tokens.json']) expect(statSync(join(dir, file)).mode & 0o777).toBe(0o600);
    expect(log.text()).toContain('took 4 of the 5 tokens');
    await Promise.all([devices.close(), notifications.close()]);
  });

  it('never splits again: a token revoked after the split stays revoked though the shared file still holds it', async () => {
    const { dir, clock, secrets } = await legacyFolder();
    const open = () => openServiceTokens({ file: undefined, dataDir: dir, service: 'device-control', scopes: DEVICE, clock, logger: captureLogger().logger });
    const first = await open();
    await first.revoke(first.authenticate(secrets.lamp)!.tokenId!);
    await first.close();

    const again = await open();

    expect(again.authenticate(secrets.lamp)).toBeUndefined();
    expect(again.authenticate(secrets.admin)).toBeDefined();
    await again.close();
  });

  it('refuses, keeps and names the tokens of the other service when both are given one TOKENS_FILE', async () => {
    const { dir, clock, secrets } = await legacyFolder();
    const log = captureLogger();
    const file = join(dir, 'tokens.json');
    const notifications = await openServiceTokens({ file, dataDir: dir, service: 'notifications', scopes: NOTIFY, clock, logger: log.logger });

    expect(notifications.authenticate(secrets.lamp)).toBeUndefined();
    expect(notifications.authenticate(secrets.both)).toBeUndefined();
    expect(notifications.authenticate(secrets.phone)).toBeDefined();
    await notifications.create({ label: 'new', scopes: [{ scope: 'notifications:read' }], expiresAt: null });
    const devices = await openServiceTokens({ file, dataDir: dir, service: 'device-control', scopes: DEVICE, clock, logger: log.logger });

    expect(devices.authenticate(secrets.lamp)?.has('devices:control')).toBe(true);
    expect(notifications.list().map((t) => t.label)).toEqual(['phone', 'admin', 'scraper', 'new']);
    expect(log.text()).toContain('holds 2 tokens of another service');
    await Promise.all([devices.close(), notifications.close()]);
  });

  it('uses TOKENS_FILE as it is, without splitting', async () => {
    const { dir, clock, secrets } = await legacyFolder();
    const file = join(dir, 'mine.json');
    const tokens = await openServiceTokens({ file, dataDir: dir, service: 'notifications', scopes: NOTIFY, clock, logger: captureLogger().logger });
    expect(tokens.size).toBe(0);
    expect(tokens.authenticate(secrets.phone)).toBeUndefined();
    await tokens.close();
  });
});

describe('two processes on one token file', () => {
  async function pair() {
    const file = join(tempDir(), 'notifications-tokens.json');
    const clock = clockAt();
    const open = async () => {
      const registry = new TokenRegistry({ store: new FileTokenStore(file), clock, scopes: NOTIFY, reloadMs: 1_000 });
      await registry.open();
      return registry;
    };
    return { file, clock, one: await open(), two: await open() };
  }

  it('loses no token the other created, and revives none the other revoked, at a create or a last-use write', async () => {
    const { file, clock, one, two } = await pair();
    const a = await one.create({ label: 'a', scopes: [{ scope: 'notifications:send' }], expiresAt: null });
    const b = await two.create({ label: 'b', scopes: [{ scope: 'notifications:read' }], expiresAt: null });
    expect(JSON.parse(await readFile(file, 'utf8')).tokens.map((t: StoredToken) => t.label)).toEqual(['a', 'b']);

    clock.advance(1_000);
    await vi.waitFor(() => expect(one.authenticate(b.secret)).toBeDefined());
    await two.revoke(a.token.id);
    expect(one.authenticate(a.secret)).toBeDefined(); // seen here until the next reload
    await one.close(); // writes the last use of `a` (and of `b`)

    const kept = JSON.parse(await readFile(file, 'utf8')).tokens as StoredToken[];
    expect(kept.map((t) => t.label)).toEqual(['b']);
    expect(kept[0]!.lastUsedAt).toBe('2026-11-26T08:00:01.000Z');
    clock.advance(1_000);
    await two.close();
  });

  it('keeps every token when both create many at once (each save under the lock, merged)', async () => {
    const { file, one, two } = await pair();
    const create = (registry: TokenRegistry, label: string) => registry.create({ label, scopes: [{ scope: 'metrics' }], expiresAt: null });

    await Promise.all(Array.from({ length: 20 }, (_, i) => [create(one, `one-${i}`), create(two, `two-${i}`)]).flat());

    expect((JSON.parse(await readFile(file, 'utf8')).tokens as StoredToken[]).length).toBe(40);
    expect(existsSync(`${file}.lock`)).toBe(false);
    await Promise.all([one.close(), two.close()]);
  });

  it('takes over a lock left by a process that died holding it', async () => {
    const { file, one } = await pair();
    writeFileSync(`${file}.lock`, '');
    utimesSync(`${file}.lock`, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));

    await one.create({ label: 'after a crash', scopes: [{ scope: 'metrics' }], expiresAt: null });

    expect(JSON.parse(await readFile(file, 'utf8')).tokens).toHaveLength(1);
    await one.close();
  });

  it('refuses a token revoked at the other process after its next reload, and ends its streams', async () => {
    const { clock, one, two } = await pair();
    const { token, secret } = await one.create({ label: 'phone', scopes: [{ scope: 'notifications:send' }], expiresAt: null });
    clock.advance(1_000);
    await vi.waitFor(() => expect(two.authenticate(secret)).toBeDefined());
    const ended: string[] = [];
    two.authenticate(secret)!.onEnd(() => ended.push('ended'));

    await one.revoke(token.id);
    clock.advance(1_000);

    await vi.waitFor(() => expect(two.authenticate(secret)).toBeUndefined());
    expect(ended).toEqual(['ended']);
    await Promise.all([one.close(), two.close()]);
  });
});

describe('mergeTokens', () => {
  const base = [token('1', ['metrics']), token('2', ['admin'])];

  it('keeps a rotation made elsewhere over a last-use write here, and the later last use', () => {
    const mine = [token('1', ['metrics'], { lastUsedAt: '2026-11-26T09:00:00.000Z' }), base[1]!];
    const theirs = [token('1', ['metrics'], { hash: 'f'.repeat(64), lastUsedAt: '2026-11-26T08:00:00.000Z' }), base[1]!];
    expect(mergeTokens(base, mine, theirs)[0]).toMatchObject({ hash: 'f'.repeat(64), lastUsedAt: '2026-11-26T09:00:00.000Z' });
  });

  it('drops what either side revoked and keeps what either side created', () => {
    const mine = [base[0]!, token('3', ['metrics'])];
    const theirs = [base[1]!, token('4', ['admin'])].slice(1);
    expect(mergeTokens(base, mine, theirs).map((t) => t.label)).toEqual(['4', '3']);
  });
});

describe('tokensOfService', () => {
  it('gives a token to the service whose scopes it holds, with only those', () => {
    const shared = [token('1', ['devices:control', 'metrics']), token('2', ['notifications:send']), token('3', ['admin', 'notifications:read'])];
    expect(tokensOfService(shared, DEVICE).map((t) => [t.label, t.scopes.map((g) => g.scope)])).toEqual([['1', ['devices:control', 'metrics']]]);
    expect(tokensOfService(shared, NOTIFY).map((t) => t.label)).toEqual(['2', '3']);
  });
});

describe('createFileExclusively', () => {
  it('lets one of many writers create the file, whole', async () => {
    const file = join(tempDir(), 'data', 'api-key');
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => createFileExclusively(file, `key-${i}\n`)));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(readFileSync(file, 'utf8')).toBe(`key-${results.indexOf(true)}\n`);
    writeFileSync(file, 'kept');
    expect(await createFileExclusively(file, 'other')).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe('kept');
  });
});
