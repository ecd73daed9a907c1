import type { Capability, CloudDevice, CloudEvent } from '../../domain/device-cloud.js';
import type { FamilyPorts } from '../../families/adapter-family.js';
import type { Abilities } from './meross-abilities.js';
import type { DeviceEntry } from './meross-device-entry.js';
import type { MerossDeviceDefinition } from './meross-library.js';
import type { DeviceRequest } from './meross-messenger.js';
import type { ChannelReading } from './meross-payloads.js';

/** A GET of a namespace. */
export const get = (namespace: string, payload: unknown = {}): DeviceRequest => ({ method: 'GET', namespace, payload });
/** A SET of a namespace. */
export const set = (namespace: string, payload: unknown): DeviceRequest => ({ method: 'SET', namespace, payload });

/** What a family's Meross codec may ask of the shared device adapter. */
export interface MerossDeviceAccess {
  /** The device, if a message can reach it now over the LAN or the cloud; else throws what stands in the way. */
  reachable(uuid: string): DeviceEntry;
  /** The device's abilities, read once (one message) and kept until its firmware changes. */
  abilitiesOf(entry: DeviceEntry): Promise<Abilities>;
  /** Reads the abilities if needed; DEVICE_NOT_CONTROLLABLE unless the device declares the capability. */
  assertCapability(entry: DeviceEntry, capability: Capability, namespace: string): Promise<void>;
  capabilitiesOf(abilities: Abilities): Capability[];
  /** Why a device is never sent the commands of a family that yields (a family it has refuses them); null if none does. */
  refusalOf(abilities: Abilities): string | null;
  send(entry: DeviceEntry, what: string, request: DeviceRequest): Promise<unknown>;
  /** The next message to the device goes through the cloud. */
  overCloud(entry: DeviceEntry): boolean;
  emit(event: CloudEvent): void;
  /** Describes the device again (its capabilities or the way it is commanded changed). */
  emitDevice(entry: DeviceEntry): void;
  setOnline(entry: DeviceEntry, online: boolean): void;
  /** Channel states the device reported or a command set: each change is announced once. */
  record(entry: DeviceEntry, readings: ChannelReading[], source: 'command' | 'push'): void;
}

/** What a poll's answers told a family: channel states, and events (each only when it differs from the last poll). */
export interface FamilyPoll {
  channels?: ChannelReading[];
  events?: CloudEvent[];
}

/** A device family's Meross codec: how it is detected, read, commanded, pushed and polled. */
export interface MerossFamily {
  readonly capability: Capability;
  /** The device declares the family among its abilities. */
  declares(abilities: Abilities): boolean;
  /** A device of this family takes no command of a family that yields, whatever it also declares; the words say why. */
  readonly refusesOthers?: string;
  /** The family gives way to one that refuses others: what its command would make such a device do is unknown. */
  readonly yields?: boolean;
  /** Until the abilities are read: device type prefixes that name the family, and whether such a device is only that. */
  readonly types?: { prefixes: readonly string[]; alone: boolean };
  /** A device whose type names no family that stands alone is assumed to have this one. */
  readonly assumed?: boolean;
  /** Learns from the abilities (read, or kept from an earlier run) and the capabilities they give. */
  learn?(entry: DeviceEntry, abilities: Abilities, capabilities: readonly Capability[]): void;
  /** Adds the family's part to the description of a device that has it. */
  describe?(device: CloudDevice, def: MerossDeviceDefinition, entry: DeviceEntry): void;
  /** Sets the family's flag on every device, false on one without the family (a flag every device shows). */
  fit?(device: CloudDevice, member: boolean, entry: DeviceEntry): void;
  /** Handles a push of the family's namespaces; false for any other namespace. */
  push?(entry: DeviceEntry, namespace: string, payload: unknown, access: MerossDeviceAccess): boolean;
  /** What a poll reads of a device with the family, beside Appliance.System.All (by what it declares, where it matters). */
  readonly pollRequests?: readonly DeviceRequest[] | ((entry: DeviceEntry) => readonly DeviceRequest[]);
  /** What a poll's answers tell; `changed` remembers a value and says whether it differs from the last poll's. */
  poll?(entry: DeviceEntry, answers: ReadonlyMap<string, unknown>, changed: (key: string, value: unknown) => boolean): FamilyPoll;
  /** Pushes were missed: what the family kept of the device is stale. */
  forget?(entry: DeviceEntry): void;
  /** The family's reads and commands (each rejects, never throws). */
  port(access: MerossDeviceAccess): Partial<FamilyPorts>;
}

/** What the device can do, from its abilities, in the order of the families. */
export function capabilitiesOf(families: readonly MerossFamily[], abilities: Abilities): Capability[] {
  const declared = families.filter((f) => f.declares(abilities));
  const refused = declared.some((f) => f.refusesOthers);
  return declared.filter((f) => !(refused && f.yields)).map((f) => f.capability);
}

/** Why the device takes no command of a family that yields; null when no family it declares refuses them. */
export function refusalOf(families: readonly MerossFamily[], abilities: Abilities): string | null {
  return families.find((f) => f.refusesOthers && f.declares(abilities))?.refusesOthers ?? null;
}

/** Until the abilities are read: the families the device type names, else the assumed ones. Only for display. */
export function capabilitiesOfType(families: readonly MerossFamily[], deviceType: string): Capability[] {
  const type = deviceType.toLowerCase();
  const named = families.filter((f) => f.types?.prefixes.some((prefix) => type.startsWith(prefix)));
  const alone = named.some((f) => f.types?.alone);
  return families.filter((f) => named.includes(f) || (!alone && f.assumed)).map((f) => f.capability);
}
