import type { Abilities } from './meross-abilities.js';
import type { LibraryDevice, MerossDeviceDefinition } from './meross-library.js';

/** What the device families' codecs keep of a device; each family adds its fields (declaration merging). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the families
export interface FamilyMemory {}

/** What the adapter keeps about one device of the account. */
export interface DeviceEntry {
  def: MerossDeviceDefinition;
  /** meross-cloud's device object; null for a device known only from the stored list, until the cloud lists it. */
  object: LibraryDevice | null;
  /** Connected to the cloud, as the cloud last said. */
  online: boolean;
  /** onlineStatus 3: installing firmware. */
  upgrading: boolean;
  /** The cloud command channel (its MQTT broker, subscriptions acknowledged) is up. */
  commandReady: boolean;
  /** The namespaces the device declared (Appliance.System.Ability), read before its first command. */
  abilities: Abilities | null;
  /** Channel states as last reported or set. */
  states: Map<number, boolean>;
  /** What the device families' codecs keep of the device. */
  memory: FamilyMemory;
  /** Counts state changes from pushes and commands, so a slower System.All answer cannot undo a newer one. */
  revision: number;
  /** Bumped when the command channel drops or the device goes offline: an answer sent before then is stale. */
  connection: number;
  /** The device's MAC (System.All's hardware.macAddress): part of the key of the encrypted LAN variant. */
  mac: string | null;
  /** Takes LAN messages only encrypted: declares Appliance.Encrypt.ECDHE (firmware's `encrypt: 1` does not tell). */
  encrypted: boolean;
  /** The devices behind a gateway as the cloud named them, kept for a start without the cloud. */
  subDevices: unknown;
  /** What a poll last told of the device's families: only changes are announced. */
  polled: Map<string, string>;
}

/** A new entry for a device, from the cloud's list or the stored one. */
export function newEntry(def: MerossDeviceDefinition, object: LibraryDevice | null): DeviceEntry {
  return {
    def,
    object,
    online: def.onlineStatus === 1,
    upgrading: def.onlineStatus === 3,
    commandReady: false,
    abilities: null,
    states: new Map(),
    memory: {},
    revision: 0,
    connection: 0,
    mac: null,
    encrypted: false,
    subDevices: null,
    polled: new Map(),
  };
}

/** Pushes were missed (command channel down, device away): what we knew may be stale (the families forget too). */
export function forgetStates(entry: DeviceEntry): void {
  entry.states.clear();
  entry.polled.clear();
  entry.connection += 1;
}
