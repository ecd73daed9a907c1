import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { setRepeatingTimer, type Clock, type Timer } from '../clock.js';
import { AppError } from '../errors.js';
import { Principal } from './principal.js';
import type { Grant, Scope } from './scopes.js';
import { mergeTokens } from './token-merge.js';
import { FileTokenStore, type StoredToken, type TokenStore } from './token-store.js';

/** A token as the API shows it: everything but its hash. */
export type TokenView = Omit<StoredToken, 'hash'>;

/** What a new or changed token is given. */
export interface TokenSettings {
  label: string;
  scopes: Grant[];
  /** ISO time after which the token is refused; null: never. */
  expiresAt: string | null;
}

export interface TokenRegistryOptions {
  store: TokenStore;
  clock: Clock;
  /** The scopes this service knows (a token for another service's scopes is refused at creation). */
  scopes: readonly Scope[];
  /** The device families devices:control may be limited to (a misspelt one would limit nothing). */
  families?: readonly string[];
  /** How often the last-use times are written back at most (default one minute). */
  lastUseFlushMs?: number;
  /** How often a store that other processes write is checked for their changes (default two seconds). */
  reloadMs?: number;
}

/** Tokens kept at most: a household needs a few dozen. */
export const MAX_TOKENS = 1_000;
// `hop_<id>_<secret>`: the id finds the token without a scan, the 256-bit secret is what is checked.
const TOKEN_FORMAT = /^hop_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;
const sha256 = (value: string) => createHash('sha256').update(value).digest();

/**
 * The scoped tokens of one service: created, changed, rotated and revoked through the API without a restart, checked
 * on every request in constant time against their hashes. Open streams of a token end when it is revoked, rotated,
 * changed or expires (`Principal.onEnd`).
 */
export class TokenRegistry {
  private readonly tokens = new Map<string, Entry>();
  /** Tokens of another service in a file both were told to share (one TOKENS_FILE): kept in it, never accepted here. */
  private readonly foreign = new Map<string, StoredToken>();
  private readonly watchers = new Map<string, Set<() => void>>();
  private lastUseDirty = false;
  private flushTimer: Timer | undefined;
  private reloadTimer: Timer | undefined;
  /** Saves and reloads run one after another, each with the state of its time. */
  private saving: Promise<void> = Promise.resolve();
  private queued = 0;

  constructor(private readonly options: TokenRegistryOptions) {}

  async open(): Promise<void> {
    this.adopt(await this.options.store.load());
    if (this.options.store.reload) this.reloadTimer = setRepeatingTimer(this.options.clock, () => this.reload(), this.options.reloadMs ?? 2_000);
  }

  /** The registry's clock time (expiries are set and checked on it). */
  now(): number {
    return this.options.clock.now();
  }

  get size(): number {
    return this.tokens.size;
  }

  /** How many tokens of another service the store holds (kept there, refused here). */
  get foreignCount(): number {
    return this.foreign.size;
  }

  list(): TokenView[] {
    return [...this.tokens.values()].map(view).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  get(id: string): TokenView {
    return view(this.known(id));
  }

  /** A new token; its secret is returned here once and never kept. */
  async create(settings: TokenSettings): Promise<{ token: TokenView; secret: string }> {
    this.checkScopes(settings.scopes);
    if (this.tokens.size >= MAX_TOKENS) throw new AppError('LIMIT_REACHED', `At most ${MAX_TOKENS} tokens are kept; revoke some first`);
    const id = randomBytes(6).toString('hex');
    const secret = `hop_${id}_${randomBytes(32).toString('base64url')}`;
    const now = new Date(this.options.clock.now()).toISOString();
    const created = this.remember({ id, hash: sha256(secret).toString('hex'), createdAt: now, lastUsedAt: null, ...settings });
    await this.persist().catch((err: unknown) => {
      // Not kept, not usable: a token that would vanish at the next start is not handed out.
      this.tokens.delete(id);
      throw err;
    });
    return { token: view(created), secret };
  }

  async update(id: string, change: Partial<TokenSettings>): Promise<TokenView> {
    if (change.scopes) this.checkScopes(change.scopes);
    const changed = this.remember({ ...stored(this.known(id)), ...change });
    if (change.scopes !== undefined || change.expiresAt !== undefined) this.end(id);
    await this.persist();
    return view(changed);
  }

  /** A new secret for the token; the old one is refused from now on. */
  async rotate(id: string): Promise<{ token: TokenView; secret: string }> {
    const known = stored(this.known(id));
    const secret = `hop_${id}_${randomBytes(32).toString('base64url')}`;
    const rotated = this.remember({ ...known, hash: sha256(secret).toString('hex') });
    this.end(id);
    await this.persist();
    return { token: view(rotated), secret };
  }

  async revoke(id: string): Promise<void> {
    this.known(id);
    this.tokens.delete(id);
    this.end(id);
    await this.persist();
  }

  /** The caller a presented secret stands for, or undefined (unknown, revoked, rotated or expired: all alike). */
  authenticate(secret: string): Principal | undefined {
    const match = TOKEN_FORMAT.exec(secret);
    const token = match ? this.tokens.get(match[1]!) : undefined;
    if (!token || !timingSafeEqual(sha256(secret), token.digest)) return undefined;
    const now = this.options.clock.now();
    if (now >= token.expiresAtMs) return undefined;
    token.lastUsedMs = now;
    this.noteUse();
    return token.principal;
  }

  /** Writes the last-use times still only in memory (on shutdown). */
  async close(): Promise<void> {
    this.flushTimer?.cancel();
    this.flushTimer = undefined;
    this.reloadTimer?.cancel();
    if (this.lastUseDirty) await this.persist();
    await this.saving;
  }

  private watch(id: string, expiresAtMs: number, onEnd: () => void): () => void {
    let ended = false;
    const once = () => {
      if (ended) return;
      ended = true;
      stop();
      onEnd();
    };
    const set = this.watchers.get(id) ?? new Set();
    this.watchers.set(id, set);
    set.add(once);
    const expiry = Number.isFinite(expiresAtMs) ? this.options.clock.setTimer(once, Math.max(0, expiresAtMs - this.options.clock.now())) : undefined;
    const stop = () => {
      expiry?.cancel();
      set.delete(once);
      if (set.size === 0 && this.watchers.get(id) === set) this.watchers.delete(id);
    };
    return stop;
  }

  private end(id: string): void {
    for (const onEnd of [...(this.watchers.get(id) ?? [])]) onEnd();
  }

  private known(id: string): Entry {
    const token = this.tokens.get(id);
    if (!token) throw new AppError('TOKEN_NOT_FOUND');
    return token;
  }

  private checkScopes(scopes: readonly Grant[]): void {
    const foreign = scopes.map((g) => g.scope).filter((scope) => !this.options.scopes.includes(scope));
    if (foreign.length > 0) refuse(`${foreign.join(', ')} is not a scope of this service (it knows ${this.options.scopes.join(', ')})`);
    const { families } = this.options;
    const named = scopes.flatMap((g) => [...(g.families ?? []), ...(g.exceptFamilies ?? [])]);
    const unknown = families ? named.filter((family) => !families.includes(family)) : [];
    if (unknown.length > 0) refuse(`${unknown.join(', ')} is not a device family (they are ${families!.join(', ')})`);
  }

  private remember(token: StoredToken): Entry {
    const { id, label, hash, scopes, createdAt, expiresAt, lastUsedAt } = token;
    const expiresAtMs = expiresAt === null ? Infinity : Date.parse(expiresAt);
    // Built once per version of the token: a request costs a hash and a lookup, nothing more.
    const principal = new Principal('token', scopes, label, id, (onEnd) => this.watch(id, expiresAtMs, onEnd));
    const lastUsedMs = lastUsedAt === null ? undefined : Date.parse(lastUsedAt);
    const entry: Entry = { id, label, hash, scopes, createdAt, expiresAt, lastUsedAt, digest: Buffer.from(hash, 'hex'), expiresAtMs, lastUsedMs, principal };
    this.tokens.set(id, entry);
    return entry;
  }

  private noteUse(): void {
    this.lastUseDirty = true;
    if (this.flushTimer) return;
    this.flushTimer = this.options.clock.setTimer(() => {
      this.flushTimer = undefined;
      if (this.lastUseDirty) void this.persist().catch(() => {});
    }, this.options.lastUseFlushMs ?? 60_000);
  }

  private persist(): Promise<void> {
    this.lastUseDirty = false;
    return this.enqueue(
      (tokens) => this.options.store.save(tokens),
      (err: unknown) => {
        this.lastUseDirty = true;
        throw new AppError('TOKENS_NOT_SAVED', `The tokens could not be saved: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, {
          cause: err,
        });
      },
    );
  }

  /** Takes in what other processes sharing the store changed (a token created, rotated or revoked there). */
  private reload(): void {
    const { store } = this.options;
    if (this.queued > 0 || !store.reload) return;
    void this.enqueue(
      () => store.reload!(),
      () => undefined,
    );
  }

  // Runs `step` with the tokens as they are when it starts, after the saves and reloads before it. What the store then
  // keeps (merged with other processes' changes) is taken in, merged again with what changed here meanwhile (a
  // create or revoke whose own save is still queued), so neither side's change is lost.
  private enqueue(step: (tokens: StoredToken[]) => Promise<StoredToken[] | void | undefined>, failed: (err: unknown) => void): Promise<void> {
    this.queued += 1;
    const current = () => [...[...this.tokens.values()].map(stored), ...this.foreign.values()];
    const next = this.saving
      .catch(() => {})
      .then(async () => {
        const snapshot = current();
        const kept = await step(snapshot);
        if (kept) this.adopt(mergeTokens(snapshot, current(), kept));
      })
      .then(
        () => {
          this.queued -= 1;
        },
        (err: unknown) => {
          this.queued -= 1;
          failed(err);
        },
      );
    this.saving = next;
    return next;
  }

  private adopt(all: readonly StoredToken[]): void {
    this.foreign.clear();
    const kept = all.filter((token) => {
      const foreign = token.scopes.some((grant) => !this.options.scopes.includes(grant.scope));
      if (foreign) this.foreign.set(token.id, token);
      return !foreign;
    });
    const ids = new Set(kept.map((t) => t.id));
    for (const id of [...this.tokens.keys()]) {
      if (ids.has(id)) continue;
      this.tokens.delete(id);
      this.end(id);
    }
    for (const token of kept) {
      const known = this.tokens.get(token.id);
      const lastUsedMs = Math.max(known?.lastUsedMs ?? -Infinity, token.lastUsedAt === null ? -Infinity : Date.parse(token.lastUsedAt));
      if (known && sameExcept(stored(known), token, ['lastUsedAt'])) {
        known.lastUsedMs = Number.isFinite(lastUsedMs) ? lastUsedMs : undefined;
        continue;
      }
      const entry = this.remember(token);
      entry.lastUsedMs = Number.isFinite(lastUsedMs) ? lastUsedMs : undefined;
      // Changed elsewhere: streams of its old grants end as after a change here (a new label alone ends none).
      if (known && !sameExcept(stored(known), token, ['lastUsedAt', 'label'])) this.end(token.id);
    }
  }
}

/** Whether two kept tokens agree in every field but `ignored` (whatever order their fields are in). */
function sameExcept(a: StoredToken, b: StoredToken, ignored: readonly string[]): boolean {
  const fields = new Set([...Object.keys(a), ...Object.keys(b)].filter((field) => !ignored.includes(field)));
  const field = (token: StoredToken, name: string) => JSON.stringify((token as Record<string, unknown>)[name]);
  return [...fields].every((name) => field(a, name) === field(b, name));
}

function refuse(message: string): never {
  throw new AppError('VALIDATION_FAILED', message, { details: [{ path: 'body.scopes', message }] });
}

/** A token as kept in memory: what is stored, plus what checking a request needs ready. */
interface Entry extends StoredToken {
  digest: Buffer;
  expiresAtMs: number;
  /** The last use, as a number: a request sets it, the ISO string is made when shown or saved. */
  lastUsedMs: number | undefined;
  principal: Principal;
}

function stored(entry: Entry): StoredToken {
  const { id, label, hash, scopes, createdAt, expiresAt } = entry;
  return { id, label, hash, scopes, createdAt, expiresAt, lastUsedAt: entry.lastUsedMs === undefined ? null : new Date(entry.lastUsedMs).toISOString() };
}

function view(entry: Entry): TokenView {
  const { hash: _hash, ...shown } = stored(entry);
  return shown;
}

/** The registry of a service kept in `file`, loaded; throws (the start stops) when the file cannot be read. */
export async function openTokens(file: string, scopes: readonly Scope[], clock: Clock, families?: readonly string[]): Promise<TokenRegistry> {
  const registry = new TokenRegistry({ store: new FileTokenStore(file), clock, scopes, ...(families ? { families } : {}) });
  await registry.open();
  return registry;
}
