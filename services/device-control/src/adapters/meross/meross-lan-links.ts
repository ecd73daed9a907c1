import type { Clock } from '@homeops/common';
import type { DeviceLink, DeviceTransport } from '../../domain/device-cloud.js';
import { backoffDelay } from './meross-backoff.js';

/** Where a device's LAN address came from: pinned in the configuration, or told by the device (System.All). */
export type AddressSource = 'config' | 'learned';

/** Why the LAN is never used for a device until something changes (a new key, new abilities, a restart). */
export type LanRefusal = 'key' | 'encryption';

/**
 * One device's LAN link. `untried`: an address, not used yet; `answering`: its last call was answered; `failing`:
 * not reached since `since` (tried again from `retryAt`, or at once when the cloud cannot carry the message either);
 * `refused`: the device refuses what we send over the LAN (5001, or it wants an encrypted protocol).
 */
export type LanLinkState =
  | { kind: 'unknown' }
  | { kind: 'untried'; address: string; source: AddressSource }
  | { kind: 'answering'; address: string; source: AddressSource }
  | {
      kind: 'failing';
      address: string;
      source: AddressSource;
      since: number;
      failures: number;
      retryAt: number;
      reason: string;
      /** A System.All through the cloud confirmed the address since it began failing: reading it again tells nothing new. */
      confirmed: boolean;
    }
  | { kind: 'refused'; address: string; source: AddressSource; refusal: LanRefusal };

/** Waits before a failing address is tried again while the cloud serves the device: 30 s doubling to 15 min. */
const RETRY = { firstMs: 30_000, maxMs: 15 * 60_000 };

const REFUSAL_TEXT: Record<LanRefusal, string> = {
  key: 'the device refused the account key over the LAN (5001); it uses the cloud',
  encryption: 'the device wants the encrypted LAN protocol (Appliance.Encrypt.ECDHE), which is not supported; it uses the cloud',
};

/**
 * The LAN side of every device: its address (pinned by configuration, else learnt from the device) and whether it
 * answers. The transitions are here and nowhere else; the adapter asks `transport` before each message.
 */
export class LanLinks {
  private readonly links = new Map<string, LanLinkState>();

  constructor(
    /** MEROSS_LAN=off: every device goes through the cloud. */
    readonly enabled: boolean,
    private readonly pinned: ReadonlyMap<string, string>,
    private readonly clock: Clock,
  ) {}

  state(uuid: string): LanLinkState {
    const known = this.links.get(uuid);
    if (known) return known;
    const address = this.pinned.get(uuid);
    return this.enabled && address ? { kind: 'untried', address, source: 'config' } : { kind: 'unknown' };
  }

  /**
   * What the next message takes. `cloudReady`: the cloud can carry it now. A failing address is tried again when its
   * wait is over, or at once when the cloud cannot help (a poll, or a command while the cloud is down).
   */
  transport(uuid: string, cloudReady: boolean, forPoll = false): DeviceTransport {
    const link = this.state(uuid);
    switch (link.kind) {
      case 'untried':
      case 'answering':
        return 'lan';
      case 'failing':
        if (forPoll || (cloudReady && this.clock.now() >= link.retryAt)) return 'lan';
        return cloudReady ? 'cloud' : 'unreachable';
      case 'unknown':
      case 'refused':
        return cloudReady ? 'cloud' : 'unreachable';
    }
  }

  /** The device told its address (System.All); a pinned one wins. Returns whether the link changed. */
  learn(uuid: string, address: string): boolean {
    if (!this.enabled || this.pinned.has(uuid)) return false;
    const link = this.state(uuid);
    if (link.kind === 'failing' && link.address === address) this.links.set(uuid, { ...link, confirmed: true });
    if (link.kind !== 'unknown' && link.address === address) return false;
    this.links.set(uuid, { kind: 'untried', address, source: 'learned' });
    return true;
  }

  /** A learnt address stopped answering and no System.All has said since whether the device moved. */
  needsRelearn(uuid: string): boolean {
    const link = this.state(uuid);
    return link.kind === 'failing' && link.source === 'learned' && !link.confirmed;
  }

  /** Remembers an address from an earlier run. */
  restore(uuid: string, address: string): void {
    if (this.enabled && !this.pinned.has(uuid) && this.state(uuid).kind === 'unknown') this.links.set(uuid, { kind: 'untried', address, source: 'learned' });
  }

  /** The address answered. Returns whether the link changed. */
  answered(uuid: string): boolean {
    const link = this.state(uuid);
    if (link.kind === 'unknown' || link.kind === 'answering' || link.kind === 'refused') return false;
    this.links.set(uuid, { kind: 'answering', address: link.address, source: link.source });
    return true;
  }

  /** The address did not answer (or not usefully): the cloud carries the device's messages until the retry. */
  failed(uuid: string, reason: string): void {
    const link = this.state(uuid);
    if (link.kind === 'unknown' || link.kind === 'refused') return;
    const failures = link.kind === 'failing' ? link.failures + 1 : 1;
    const now = this.clock.now();
    const since = link.kind === 'failing' ? link.since : now;
    const confirmed = link.kind === 'failing' && link.confirmed;
    const retryAt = now + backoffDelay(RETRY.firstMs, failures, RETRY.maxMs);
    this.links.set(uuid, { kind: 'failing', address: link.address, source: link.source, since, failures, retryAt, reason, confirmed });
  }

  /** The device refuses what we send over the LAN: never tried again until the address or the device changes. */
  refuse(uuid: string, refusal: LanRefusal): boolean {
    const link = this.state(uuid);
    if (link.kind === 'unknown' || (link.kind === 'refused' && link.refusal === refusal)) return false;
    this.links.set(uuid, { kind: 'refused', address: link.address, source: link.source, refusal });
    return true;
  }

  /** New firmware (new abilities): an encryption refusal is looked at again. */
  reconsider(uuid: string): void {
    const link = this.state(uuid);
    if (link.kind === 'refused' && link.refusal === 'encryption') this.links.set(uuid, { kind: 'untried', address: link.address, source: link.source });
  }

  forget(uuid: string): void {
    this.links.delete(uuid);
  }

  /** The address to keep for the next start: only one the device told (a pinned one comes from the configuration again). */
  learnedAddress(uuid: string): string | null {
    const link = this.state(uuid);
    return link.kind !== 'unknown' && link.source === 'learned' ? link.address : null;
  }

  /** The domain's view of the link. */
  describe(uuid: string, cloudReady: boolean, pushes: boolean): DeviceLink {
    const link = this.state(uuid);
    const base = { transport: this.transport(uuid, cloudReady), pushes };
    switch (link.kind) {
      case 'unknown':
        return { ...base, address: null, addressSource: null, lanProblem: null };
      case 'untried':
      case 'answering':
        return { ...base, address: link.address, addressSource: link.source, lanProblem: null };
      case 'failing':
        return {
          ...base,
          address: link.address,
          addressSource: link.source,
          lanProblem: `no answer over the LAN since ${new Date(link.since).toISOString()} (${link.reason})`,
        };
      case 'refused':
        return { ...base, address: link.address, addressSource: link.source, lanProblem: REFUSAL_TEXT[link.refusal] };
    }
  }
}
