import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_TOKENS } from '../src/tokens/token-registry.js';
import {
  AppError,
  GrantsSchema,
  InMemoryTokenStore,
  ManualClock,
  openTokens,
  Principal,
  TokenRegistry,
  type StoredToken,
  type TokenStore,
} from '../src/index.js';

const SCOPES = ['admin', 'metrics', 'devices:read', 'devices:control'] as const;
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'tokens-'));
  dirs.push(dir);
  return dir;
};

function registry(store: TokenStore = new InMemoryTokenStore(), clock = new ManualClock(Date.parse('2026-11-26T08:00:00Z'))) {
  return { tokens: new TokenRegistry({ store, clock, scopes: SCOPES, lastUseFlushMs: 60_000 }), clock, store };
}

describe('TokenRegistry', () => {
  it('knows a token by its secret only, and by none after a rotation or a revocation', async () => {
    const { tokens } = registry();
    const { token, secret } = await tokens.create({ label: 'kitchen shortcut', scopes: [{ scope: 'devices:read' }], expiresAt: null });

    expect(secret).toMatch(/^hop_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/);
    expect(tokens.authenticate(secret)).toMatchObject({ kind: 'token', label: 'kitchen shortcut', tokenId: token.id });
    expect(tokens.authenticate(secret)!.has('devices:control')).toBe(false);
    const flipped = `${secret.slice(0, 30)}${secret[30] === 'x' ? 'y' : 'x'}${secret.slice(31)}`;
    for (const wrong of [flipped, secret.replace(token.id, '000000000000'), 'hop_', '', secret.toUpperCase()]) {
      expect(tokens.authenticate(wrong)).toBeUndefined();
    }

    const rotated = await tokens.rotate(token.id);
    expect(tokens.authenticate(secret)).toBeUndefined();
    expect(tokens.authenticate(rotated.secret)?.tokenId).toBe(token.id);

    await tokens.revoke(token.id);
    expect(tokens.authenticate(rotated.secret)).toBeUndefined();
    expect(() => tokens.get(token.id)).toThrow(AppError);
  });

  it('refuses an expired token and ends what watches it when it expires, is revoked, rotated or changed', async () => {
    const { tokens, clock } = registry();
    const expiring = await tokens.create({ label: 'a day', scopes: [{ scope: 'metrics' }], expiresAt: new Date(clock.now() + 60_000).toISOString() });
    const ended: string[] = [];
    tokens.authenticate(expiring.secret)!.onEnd(() => ended.push('expired'));
    clock.advance(59_999);
    expect(tokens.authenticate(expiring.secret)).toBeDefined();
    expect(ended).toEqual([]);
    clock.advance(1);
    expect(ended).toEqual(['expired']);
    expect(tokens.authenticate(expiring.secret)).toBeUndefined();

    for (const change of ['revoke', 'rotate', 'update'] as const) {
      const { token, secret } = await tokens.create({ label: change, scopes: [{ scope: 'devices:read' }], expiresAt: null });
      tokens.authenticate(secret)!.onEnd(() => ended.push(change));
      if (change === 'revoke') await tokens.revoke(token.id);
      if (change === 'rotate') await tokens.rotate(token.id);
      if (change === 'update') await tokens.update(token.id, { scopes: [{ scope: 'metrics' }] });
    }
    expect(ended).toEqual(['expired', 'revoke', 'rotate', 'update']);
  });

  it('keeps only hashes, in a 0600 file, and the last use written back within the flush interval', async () => {
    const file = join(tempDir(), 'data', 'tokens.json');
    const clock = new ManualClock(Date.parse('2026-11-26T08:00:00Z'));
    const tokens = await openTokens(file, SCOPES, clock);
    const { token, secret } = await tokens.create({ label: 'ha', scopes: [{ scope: 'devices:control', exceptFamilies: ['garageDoor'] }], expiresAt: null });
    const text = () => readFileSync(file, 'utf8');

    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(text()).not.toContain(secret);
    expect(text()).not.toContain(secret.slice(18));
    expect(JSON.parse(text()).tokens[0]).toMatchObject({ id: token.id, label: 'ha', hash: expect.stringMatching(/^[0-9a-f]{64}$/), lastUsedAt: null });

    clock.advance(5_000);
    tokens.authenticate(secret);
    clock.advance(60_000);
    await tokens.close();
    expect(JSON.parse(text()).tokens[0].lastUsedAt).toBe('2026-11-26T08:00:05.000Z');

    const again = await openTokens(file, SCOPES, clock);
    expect(again.authenticate(secret)?.mayControl({ uuid: 'x', family: 'garageDoor' })).toBe(false);
    expect(again.authenticate(secret)?.mayControl({ uuid: 'x', family: 'switch' })).toBe(true);
  });

  it('stops the start on a broken file and never overwrites it', async () => {
    const file = join(tempDir(), 'tokens.json');
    writeFileSync(file, '{"version":1,"tokens":[{"id":"nope"}]}');
    await expect(openTokens(file, SCOPES, new ManualClock())).rejects.toThrow(/not a token file/);
    writeFileSync(file, 'not json');
    await expect(openTokens(file, SCOPES, new ManualClock())).rejects.toThrow(/not JSON/);
    expect(readFileSync(file, 'utf8')).toBe('not json');
  });

  it('hands out no token it could not save, and says so with TOKENS_NOT_SAVED', async () => {
    const failing: TokenStore = { load: () => Promise.resolve([]), save: () => Promise.reject(Object.assign(new Error('disk full'), { code: 'ENOSPC' })) };
    const { tokens } = registry(failing);
    await expect(tokens.create({ label: 'x', scopes: [{ scope: 'metrics' }], expiresAt: null })).rejects.toMatchObject({ code: 'TOKENS_NOT_SAVED' });
    expect(tokens.list()).toEqual([]);
  });

  it("refuses another service's scopes", async () => {
    const { tokens } = registry();
    await expect(tokens.create({ label: 'x', scopes: [{ scope: 'notifications:send' }], expiresAt: null })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
  });
});

describe('grants and principals', () => {
  it('takes bare scope names or objects, each scope once, limits only where they apply', () => {
    expect(GrantsSchema.parse(['metrics', { scope: 'notifications:read', recipients: ['alice'] }])).toEqual([
      { scope: 'metrics' },
      { scope: 'notifications:read', recipients: ['alice'] },
    ]);
    expect(GrantsSchema.safeParse(['metrics', 'metrics']).success).toBe(false);
    expect(GrantsSchema.safeParse([{ scope: 'devices:read', recipients: ['alice'] }]).success).toBe(false);
    expect(GrantsSchema.safeParse([{ scope: 'devices:control', exceptFamilies: [] }]).success).toBe(false);
    expect(GrantsSchema.safeParse(['root']).success).toBe(false);
    expect(GrantsSchema.safeParse([]).success).toBe(false);
  });

  it('limits devices:control by uuid, family and excluded family, and the notification scopes by recipient', () => {
    const two = new Principal('token', [{ scope: 'devices:control', devices: ['a', 'b'] }]);
    expect([two.mayControl({ uuid: 'a', family: 'switch' }), two.mayControl({ uuid: 'c', family: 'switch' })]).toEqual([true, false]);
    const plugs = new Principal('token', [{ scope: 'devices:control', families: ['switch'], exceptFamilies: ['garageDoor'] }]);
    expect([plugs.mayControl({ uuid: 'a', family: 'switch' }), plugs.mayControl({ uuid: 'a', family: 'light' })]).toEqual([true, false]);
    const alice = new Principal('token', [{ scope: 'notifications:read', recipients: ['alice'] }]);
    expect([alice.mayReach('notifications:read', 'alice'), alice.mayReach('notifications:read', 'bob'), alice.mayReach('notifications:send', 'alice')]).toEqual(
      [true, false, false],
    );
    expect(() => alice.requireRecipient('notifications:read', 'bob')).toThrow(/notifications:read scope for recipient "bob"/);
    expect(Principal.key.mayControl({ uuid: 'z', family: 'garageDoor' })).toBe(true);
    expect(Principal.key.mayReach('notifications:send', 'anyone')).toBe(true);
    expect(() => Principal.anonymous.require('metrics')).toThrow(expect.objectContaining({ code: 'UNAUTHORIZED' }));
    expect(() => new Principal('token', [{ scope: 'metrics' }]).require('admin')).toThrow(expect.objectContaining({ code: 'SCOPE_MISSING' }));
  });
});

describe('how many tokens are kept', () => {
  it('refuses a new one past MAX_TOKENS with LIMIT_REACHED', async () => {
    // A store that keeps the last list as given: the in-memory one copies all of it on every save (quadratic here).
    let saved: readonly StoredToken[] = [];
    const store: TokenStore = {
      load: () => Promise.resolve([]),
      save: (list) => {
        saved = [...list];
        return Promise.resolve();
      },
    };
    const { tokens } = registry(store);
    for (let i = 0; i < MAX_TOKENS; i++) await tokens.create({ label: `t${i}`, scopes: [{ scope: 'metrics' }], expiresAt: null });
    await expect(tokens.create({ label: 'one more', scopes: [{ scope: 'metrics' }], expiresAt: null })).rejects.toMatchObject({ code: 'LIMIT_REACHED' });
    expect(saved).toHaveLength(MAX_TOKENS);
  });
});
