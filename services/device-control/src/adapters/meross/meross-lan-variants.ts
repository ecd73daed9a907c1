import type { Logger } from '@homeops/common';
import type { DeviceEntry } from './meross-device-entry.js';
import { isUnreadableVariant, LanCallError } from './meross-lan-http.js';

/** The two ways a device takes LAN messages: plain JSON, or AES-encrypted (devices that declare Appliance.Encrypt.ECDHE). */
export type LanVariant = 'plain' | 'encrypted';

/**
 * Which variant each device reads. The Appliance.Encrypt.ECDHE ability decides, as meross_lan decides it (firmware's
 * `encrypt: 1` says nothing: plain devices report it too). A device that cannot read the variant it got is sent the
 * other one once; the variant it reads is kept for the device until the process ends.
 */
export class LanVariants {
  /** The variant a device was found to read against what its abilities say. */
  private readonly learnt = new Map<string, LanVariant>();

  constructor(private readonly log: Logger) {}

  /** The variant the device reads: the one it was found to read, else the one its abilities say. */
  of(entry: DeviceEntry): LanVariant {
    return this.learnt.get(entry.def.uuid) ?? (entry.encrypted ? 'encrypted' : 'plain');
  }

  /** The encrypted variant needs the device's MAC, which only a System.All answer tells. */
  possible(entry: DeviceEntry, variant: LanVariant = this.of(entry)): boolean {
    return variant === 'plain' || entry.mac !== null;
  }

  /**
   * One call in the device's variant; when the device could not read it, once more in the other. The variant the
   * device reads (it answers a message, an ERROR included) is kept; when it reads neither, the first failure stands.
   */
  async call(entry: DeviceEntry, callIn: (variant: LanVariant) => Promise<unknown>): Promise<unknown> {
    const expected = this.of(entry);
    let failure: unknown;
    try {
      return await callIn(expected);
    } catch (err) {
      failure = err;
    }
    const other: LanVariant = expected === 'plain' ? 'encrypted' : 'plain';
    if (!isUnreadableVariant(failure) || !this.possible(entry, other)) throw failure;
    let payload: unknown;
    try {
      payload = await callIn(other);
    } catch (err) {
      const read = err instanceof LanCallError && (err.kind === 'refused-key' || err.kind === 'device-error');
      if (!read) throw failure;
      this.learn(entry, other);
      throw err;
    }
    this.learn(entry, other);
    return payload;
  }

  private learn(entry: DeviceEntry, variant: LanVariant): void {
    this.learnt.set(entry.def.uuid, variant);
    this.log.info({ uuid: entry.def.uuid, variant }, 'the device reads the other LAN variant than its abilities say; kept for this run');
  }
}
