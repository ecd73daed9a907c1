import { isoNow, SingleFlight, systemClock, type Clock, type Timer } from '@homeops/common';
import type { KeyObject } from 'node:crypto';
import type { RecipientCheck } from '../../domain/push-provider.js';
import { DeliveryError } from '../../domain/push-provider.js';
import { encryptionKeyTexts } from './field-cipher.js';
import { validateUser, type ApiAccess } from './pushover-api.js';
import { DEFAULT_ALIAS, type RecipientMap, type RecipientTarget } from './recipient-map.js';

/** A validation that got no answer is tried again after this, doubling up to an hour. */
const FIRST_RETRY_MS = 5 * 60_000;
const MAX_RETRY_MS = 60 * 60_000;

/**
 * The Pushover keys by alias (PROVIDER_USER_KEY as `default`, and the recipient map), and what Pushover's
 * `users/validate.json` said about each: a key it refused is never sent to, and /health names its recipient.
 */
export class RecipientKeys {
  readonly #targets = new Map<string, RecipientTarget>();
  readonly #checks = new Map<string, RecipientCheck>();
  readonly #unmapped: 'default' | 'refuse';
  #retryMs = FIRST_RETRY_MS;
  #timer: Timer | undefined;
  readonly #running = new SingleFlight<void>();

  constructor(
    defaultKey: string | undefined,
    map: RecipientMap | undefined,
    private readonly clock: Clock = systemClock,
    defaultEncryptionKey?: KeyObject,
  ) {
    if (defaultKey)
      this.#targets.set(DEFAULT_ALIAS, { key: defaultKey, devices: [], ...(defaultEncryptionKey ? { encryptionKey: defaultEncryptionKey } : {}) });
    for (const [name, target] of map?.recipients ?? []) this.#targets.set(name, target);
    this.#unmapped = map?.unmapped ?? 'default';
    for (const recipient of this.#targets.keys()) this.#checks.set(recipient, { recipient, state: 'unchecked' });
  }

  get size(): number {
    return this.#targets.size;
  }

  /** Every key (encryption keys too), for redaction. */
  keys(): string[] {
    return [...this.#targets.values()].flatMap((t) => [t.key, ...(t.encryptionKey ? encryptionKeyTexts(t.encryptionKey) : [])]);
  }

  /** The alias a recipient's pushes go to; null when it is not mapped and may not use the default key. */
  aliasOf(recipient: string): string | null {
    if (recipient !== DEFAULT_ALIAS && this.#targets.has(recipient)) return recipient;
    return this.#unmapped === 'default' && this.#targets.has(DEFAULT_ALIAS) ? DEFAULT_ALIAS : null;
  }

  /** The alias a key belongs to (to name who acknowledged an emergency without keeping the key). */
  aliasOfKey(key: string): string | undefined {
    for (const [alias, target] of this.#targets) if (target.key === key) return alias;
    return undefined;
  }

  /** The target of an alias, or a DeliveryError saying why nothing may be sent to it. */
  targetOf(alias: string | undefined): RecipientTarget {
    const name = alias ?? DEFAULT_ALIAS;
    const target = this.#targets.get(name);
    if (!target) throw new DeliveryError(`Not sent: "${name}" is no longer in the recipient map`, false);
    const check = this.#checks.get(name);
    if (check?.state === 'invalid') {
      throw new DeliveryError(`Not sent: Pushover refused the key of recipient "${name}" when it was checked: ${check.problem ?? 'invalid'}`, false);
    }
    return target;
  }

  checks(): RecipientCheck[] {
    return [...this.#checks.values()].map((c) => ({ ...c, ...(c.devices ? { devices: [...c.devices] } : {}) }));
  }

  /** Validates every key not yet known to be valid or invalid; unanswered ones are tried again later. */
  validate(access: ApiAccess): Promise<void> {
    return this.#running.run(() => this.#validateAll(access));
  }

  /** One key that Pushover accepts right now (any alias), for the circuit's probe; false when none is. */
  async probe(access: ApiAccess): Promise<boolean> {
    const first = [...this.#targets.entries()].find(([alias]) => this.#checks.get(alias)?.state !== 'invalid');
    if (!first) return false;
    const answer = await validateUser(access, first[1].key);
    return answer.valid;
  }

  stop(): Promise<void> {
    this.#timer?.cancel();
    this.#timer = undefined;
    return this.#running.current ?? Promise.resolve();
  }

  async #validateAll(access: ApiAccess): Promise<void> {
    let unanswered = false;
    for (const [alias, target] of this.#targets) {
      const state = this.#checks.get(alias)?.state;
      if (state === 'valid' || state === 'invalid') continue;
      const checkedAt = isoNow(this.clock);
      try {
        const answer = await validateUser(access, target.key);
        if (!answer.valid) {
          this.#checks.set(alias, { recipient: alias, state: 'invalid', problem: `Pushover refused the key: ${answer.problem}`, checkedAt });
          continue;
        }
        const missing = answer.devices.length > 0 ? target.devices.filter((d) => !answer.devices.includes(d)) : [];
        this.#checks.set(alias, {
          recipient: alias,
          state: missing.length > 0 ? 'invalid' : 'valid',
          ...(missing.length > 0 ? { problem: `no device named ${missing.join(', ')} (the key has ${answer.devices.join(', ')})` } : {}),
          devices: answer.devices,
          checkedAt,
        });
      } catch (error) {
        unanswered = true;
        this.#checks.set(alias, { recipient: alias, state: 'unreachable', problem: `not checked yet: ${(error as Error).message}`, checkedAt });
      }
    }
    if (unanswered) {
      this.#timer = this.clock.setTimer(() => void this.validate(access), this.#retryMs);
      this.#retryMs = Math.min(MAX_RETRY_MS, this.#retryMs * 2);
    }
  }
}
