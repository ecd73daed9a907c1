import { readFile } from 'node:fs/promises';
import { isoNow, z, type Clock } from '@homeops/common';
import type { MerossDeviceDefinition } from './meross-library.js';
import { writeSecretFile } from './meross-secret-file.js';

const StoredDeviceSchema = z.object({
  def: z.looseObject({ uuid: z.string().min(1), deviceType: z.string() }),
  /** The LAN address the device told (a pinned one is read from the configuration again). */
  address: z.string().nullable(),
  /** Its Appliance.System.Ability answer, so a restart does not read it again. */
  abilities: z.record(z.string(), z.unknown()).nullable(),
  /** The devices behind a gateway, as the cloud named them. */
  subDevices: z.unknown().optional(),
  /** The MAC, and whether the device wants its LAN messages encrypted (the key of that variant needs the MAC). */
  mac: z.string().nullable().optional(),
  encrypted: z.boolean().optional(),
});

const StoredListSchema = z.object({
  version: z.literal(1),
  /** The same fingerprint as the token file's: a list is never used for another account. */
  account: z.string(),
  /** The account key signs LAN messages; it outlives tokens, so the LAN keeps working while a token is refused. */
  key: z.string().min(1),
  savedAt: z.string(),
  devices: z.array(StoredDeviceSchema),
});

/** One device as kept between runs. */
export type StoredDevice = Omit<z.infer<typeof StoredDeviceSchema>, 'def' | 'subDevices'> & { def: MerossDeviceDefinition; subDevices?: unknown };

/** The account's devices as kept between runs. */
export interface StoredList {
  key: string;
  savedAt: string;
  devices: StoredDevice[];
}

/**
 * The device list of the last run, beside the token file (same folder, 0600, written atomically): what a start during a
 * cloud outage lists and reaches over the LAN. Saves run one after another; the last one asked for wins.
 */
export class DeviceStore {
  private saving: Promise<void> = Promise.resolve();
  private queued: Promise<void> | null = null;

  constructor(
    private readonly file: string | undefined,
    private readonly account: string,
    private readonly clock: Clock,
  ) {}

  /** The kept list of this account, or null (none, another account, unreadable). */
  async load(): Promise<StoredList | null> {
    if (!this.file) return null;
    try {
      const parsed = StoredListSchema.safeParse(JSON.parse(await readFile(this.file, 'utf8')));
      if (!parsed.success || parsed.data.account !== this.account) return null;
      const { key, savedAt, devices } = parsed.data;
      return { key, savedAt, devices: devices as StoredDevice[] };
    } catch {
      return null;
    }
  }

  /** Resolves once every save asked for so far is written (or failed): the adapter stops after it. */
  idle(): Promise<void> {
    return this.saving;
  }

  /**
   * Queues a save of what `snapshot` gives when the write starts (null: nothing to keep yet); a save already queued and
   * not started takes the newest state, so a burst of changes costs one write. A failure goes to `onError`.
   */
  save(snapshot: () => Omit<StoredList, 'savedAt'> | null, onError: (error: unknown) => void): Promise<void> {
    const file = this.file;
    if (!file) return Promise.resolve();
    if (this.queued) return this.queued;
    this.queued = this.saving.then(async () => {
      this.queued = null;
      const list = snapshot();
      if (!list) return;
      const text = `${JSON.stringify({ version: 1, account: this.account, key: list.key, savedAt: isoNow(this.clock), devices: list.devices }, null, 2)}\n`;
      await writeSecretFile(file, text).catch(onError);
    });
    this.saving = this.queued;
    return this.queued;
  }
}
