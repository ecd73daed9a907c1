import { AppError, type Clock, type Logger } from '@homeops/common';
import type { Capability, CloudDevice, CloudEvent } from '../../domain/device-cloud.js';
import { parseAbilities, type Abilities } from './meross-abilities.js';
import { MerossBrokers, type BrokerRecoveryOptions } from './meross-brokers.js';
import { forgetStates, newEntry, type DeviceEntry } from './meross-device-entry.js';
import type { StoredDevice } from './meross-device-store.js';
import type { LanLinks } from './meross-lan-links.js';
import type { LibraryCloud, LibraryDevice, MerossDeviceDefinition } from './meross-library.js';
import type { FamilyPorts } from '../../families/adapter-family.js';
import { capabilitiesOf, capabilitiesOfType, get, refusalOf, type MerossDeviceAccess, type MerossFamily } from './meross-family.js';
import { MerossMessenger, notControllable, type DeviceRequest } from './meross-messenger.js';
import type { MerossLanHttp } from './meross-lan-http.js';
import { parseOnlineStatus, toCloudDevice, type ChannelReading } from './meross-payloads.js';
import { pollRequestsOf, pollResultOf } from './meross-poll.js';
import type { SecretRedactor } from './meross-secrets.js';

/** The namespace that tells a device wants its LAN messages encrypted. */
const ENCRYPTION_NAMESPACE = 'Appliance.Encrypt.ECDHE';

interface MerossDevicesDeps {
  lib: LibraryCloud;
  commandTimeoutMs: number;
  recovery: BrokerRecoveryOptions;
  clock: Clock;
  redactor: SecretRedactor;
  log: Logger;
  emit: (event: CloudEvent) => void;
  assertSessionUp: () => void;
  /** Broker failures show in the session's lastError (/health). */
  recordError: (code: string, message: string) => void;
  /** The LAN side: links, the HTTP client, the key and the port of learnt addresses. */
  lan: { links: LanLinks; http: MerossLanHttp; key: () => string | null; port: number };
  /** Something worth keeping for the next start changed (an address, abilities, a MAC). */
  onLearned: () => void;
  /** The device families' Meross codecs, in the order their capabilities are listed. */
  families: readonly MerossFamily[];
}

/**
 * The account's devices: meross-cloud's device objects reconciled by uuid (or, after a start without the cloud, the
 * stored list), each message sent over the LAN or the cloud as its link says (MerossMessenger), kept fresh from
 * pushes and, where pushes do not arrive, from polls.
 */
export class MerossDevices {
  private readonly entries = new Map<string, DeviceEntry>();
  private readonly brokers: MerossBrokers;
  private readonly messenger: MerossMessenger;
  private lastMqttError: string | null = null;
  private stopped = false;
  private readonly families: readonly MerossFamily[];
  /** The device families' reads and commands, built from their codecs. */
  readonly ports: FamilyPorts;
  /** What the families' codecs reach of the devices. */
  private readonly access: MerossDeviceAccess;

  constructor(private readonly deps: MerossDevicesDeps) {
    this.families = deps.families;
    const { lib } = deps;
    this.brokers = new MerossBrokers({
      lib,
      log: deps.log,
      redactor: deps.redactor,
      recovery: deps.recovery,
      clock: deps.clock,
      onSent: (namespace) => deps.emit({ type: 'sent', via: 'mqtt', what: namespace }),
      onBrokerChange: (uuids) => uuids.forEach((uuid) => this.updateReady(uuid)),
    });
    this.messenger = new MerossMessenger({
      ...deps.lan,
      lanPort: deps.lan.port,
      commandTimeoutMs: deps.commandTimeoutMs,
      clock: deps.clock,
      redactor: deps.redactor,
      log: deps.log,
      emit: deps.emit,
      cloudReady: (entry) => this.cloudReady(entry),
      assertCloudRoute: (entry) => this.assertCloudRoute(entry),
      onLinkChange: (entry) => this.emitDevice(entry),
      onLearned: deps.onLearned,
    });
    lib.on('deviceInitialized', (uuid: string, def: MerossDeviceDefinition, object: LibraryDevice) => this.adopt(uuid, def, object));
    for (const event of ['connected', 'close', 'reconnect']) lib.on(event, (uuid: string) => this.updateReady(uuid));
    lib.on('data', (uuid: string, namespace: string, payload: unknown) => this.onPush(uuid, namespace, payload));
    this.access = {
      reachable: (uuid) => this.assertReachable(uuid),
      abilitiesOf: (entry) => this.abilitiesOf(entry),
      assertCapability: (entry, capability, namespace) => this.assertCapability(entry, capability, namespace),
      capabilitiesOf: (abilities) => capabilitiesOf(this.families, abilities),
      refusalOf: (abilities) => refusalOf(this.families, abilities),
      send: (entry, what, request) => this.send(entry, what, request),
      overCloud: (entry) => this.messenger.transportOf(entry) !== 'lan',
      emit: (event) => this.deps.emit(event),
      emitDevice: (entry) => this.emitDevice(entry),
      setOnline: (entry, online) => this.setOnline(entry, online),
      record: (entry, readings, source) => this.record(entry, readings, source),
    };
    this.ports = Object.assign({}, ...this.families.map((f) => f.port(this.access))) as FamilyPorts;
  }

  /** Makes the entries match a fetched list: gone devices are dropped, presence follows the list. */
  reconcile(list: MerossDeviceDefinition[]): void {
    const uuids = new Set(list.map((d) => d.uuid));
    for (const uuid of this.entries.keys()) {
      if (uuids.has(uuid)) continue;
      this.entries.delete(uuid);
      this.brokers.forget(uuid);
      this.deps.lan.links.forget(uuid);
      delete this.deps.lib.devices[uuid];
    }
    for (const def of list) {
      const entry = this.entries.get(def.uuid);
      if (!entry) continue;
      // New firmware may bring new abilities (and drop or add the encrypted LAN variant).
      if (entry.def.fmwareVersion !== def.fmwareVersion) {
        entry.abilities = null;
        this.deps.lan.links.reconsider(def.uuid);
      }
      entry.def = def;
      entry.online = def.onlineStatus === 1;
      entry.upgrading = def.onlineStatus === 3;
      if (!entry.online) entry.states.clear();
    }
  }

  /** Entries for a start without the cloud: the stored list, with what was learnt of each device then. */
  restore(stored: StoredDevice[]): void {
    for (const { def, address, abilities, subDevices, mac, encrypted } of stored) {
      if (this.entries.has(def.uuid)) continue;
      const entry = newEntry(def, null);
      // The abilities decide the variant; a flag kept without them (an older run took it from firmware's encrypt) is
      // only a first guess, which the messenger corrects when the device cannot read it.
      entry.encrypted = encrypted ?? false;
      if (abilities) this.setAbilities(entry, new Map(Object.entries(abilities)));
      entry.subDevices = subDevices ?? null;
      entry.mac = mac ?? null;
      this.entries.set(def.uuid, entry);
      if (address) this.deps.lan.links.restore(def.uuid, address);
    }
  }

  /** What to keep for the next start. */
  snapshot(): StoredDevice[] {
    return [...this.entries.values()].map((e) => ({
      def: e.def,
      address: this.deps.lan.links.learnedAddress(e.def.uuid),
      abilities: e.abilities ? Object.fromEntries(e.abilities) : null,
      subDevices: e.object?.subDeviceList ?? e.subDevices ?? null,
      mac: e.mac,
      encrypted: e.encrypted,
    }));
  }

  describe(list: MerossDeviceDefinition[]): CloudDevice[] {
    return list.map((def) => {
      const entry = this.entries.get(def.uuid) ?? newEntry(def, null);
      const uuid = def.uuid;
      const transport = this.messenger.transportOf(entry);
      const lanAnswers = transport === 'lan' && this.deps.lan.links.state(uuid).kind === 'answering';
      const link = this.deps.lan.links.describe(uuid, this.cloudReady(entry), this.cloudReady(entry) && entry.online);
      return toCloudDevice(def, entry, this.families, {
        // A device the LAN reaches is there, whatever its own cloud connection says.
        online: entry.online || lanAnswers,
        upgrading: entry.upgrading,
        commandReady: transport !== 'unreachable',
        capabilities: entry.abilities ? capabilitiesOf(this.families, entry.abilities) : null,
        link: { ...link, transport },
      });
    });
  }

  /** Every entry's description (the stored list after a start without the cloud). */
  describeAll(): CloudDevice[] {
    return this.describe([...this.entries.values()].map((e) => e.def));
  }

  /** The abilities were read (or kept from an earlier run) and no firmware change dropped them since. */
  abilitiesKnown(uuid: string): boolean {
    return (this.entries.get(uuid)?.abilities ?? null) !== null;
  }

  /**
   * Reads the device's state and announces it like pushes: over the LAN only (`lanOnly`, several namespaces in one
   * Appliance.Control.Multiple where declared), or System.All by the device's transport (which learns its address).
   */
  async refresh(uuid: string, lanOnly: boolean): Promise<void> {
    const entry = this.entries.get(uuid);
    if (!entry) throw new AppError('DEVICE_NOT_FOUND', `No device with uuid ${uuid} in the Meross account`);
    if (entry.upgrading) throw notControllable(`Device ${uuid} is installing a firmware update`);
    const { revision } = entry;
    let answers: Map<string, unknown>;
    if (lanOnly) {
      const capabilities = entry.abilities ? capabilitiesOf(this.families, entry.abilities) : capabilitiesOfType(this.families, entry.def.deviceType);
      answers = await this.messenger.readMany(entry, pollRequestsOf(this.families, capabilities, entry), maxCommandsOf(entry.abilities));
    } else {
      this.assertReachable(uuid);
      // Asked for an address nobody told yet, or after a LAN failure to learn whether the device moved (once per failing streak).
      const links = this.deps.lan.links;
      const worthIt = this.messenger.transportOf(entry) === 'lan' || links.needsRelearn(uuid) || (links.enabled && links.state(uuid).kind === 'unknown');
      if (!worthIt) return;
      answers = new Map([['Appliance.System.All', await this.send(entry, 'reading Appliance.System.All', get('Appliance.System.All'))]]);
    }
    const { channels, events } = pollResultOf(this.families, entry, answers);
    // A push or a command that came while the answers were on their way is newer: it wins.
    if (entry.revision === revision) this.record(entry, channels, 'push');
    for (const event of events) this.deps.emit(event);
  }

  /** Cancels the library's pending reply timers and closes the broker connections (without logging out). */
  stop(): void {
    this.stopped = true;
    for (const device of Object.values(this.deps.lib.devices)) {
      for (const waiting of Object.values(device.waitingMessageIds)) clearTimeout(waiting.timeout);
    }
    this.brokers.stop();
    this.deps.lan.http.close();
  }

  onLibraryError(error: unknown, uuid?: string): void {
    const message = this.deps.redactor.describe(error);
    if (this.stopped || message === this.lastMqttError) return;
    this.lastMqttError = message;
    this.deps.recordError('mqtt', message);
    this.deps.log.warn({ uuid, error: message }, 'meross-cloud reported an error');
  }

  private adopt(uuid: string, def: MerossDeviceDefinition, object: LibraryDevice): void {
    const entry = this.entries.get(uuid);
    if (!entry) {
      this.entries.set(uuid, newEntry(def, object));
      return;
    }
    // A re-fetch replaces the library's device object: replies to commands in flight now reach the new one.
    if (entry.object && entry.object !== object) Object.assign(object.waitingMessageIds, entry.object.waitingMessageIds);
    entry.def = def;
    entry.object = object;
  }

  /** The cloud command channel to the device is up. */
  private cloudReady(entry: DeviceEntry): boolean {
    return entry.object !== null && entry.commandReady;
  }

  private updateReady(uuid: string): void {
    const entry = this.entries.get(uuid);
    if (!entry) return;
    const ready = this.brokers.isUp(entry.def);
    if (ready) this.brokers.onConnected(entry.def);
    if (ready === entry.commandReady) return;
    entry.commandReady = ready;
    if (ready) this.lastMqttError = null;
    // Pushes are missed while the channel is down: what we knew may be stale (the service forgets it too).
    else this.forget(entry);
    this.deps.log.info({ uuid, commandReady: ready }, 'meross command channel changed');
    // No state read here: a flapping broker would send one per device per reconnect. The service decides when
    // to read (within its command budget, or over the LAN); it learns from this event that the channel changed.
    this.emitDevice(entry);
  }

  private emitDevice(entry: DeviceEntry): void {
    if (this.entries.get(entry.def.uuid) !== entry) return;
    const [device] = this.describe([entry.def]);
    if (device) this.deps.emit({ type: 'device', device });
  }

  private onPush(uuid: string, namespace: string, payload: unknown): void {
    const entry = this.entries.get(uuid);
    if (!entry) return;
    if (namespace === 'Appliance.System.Online') {
      const status = parseOnlineStatus(payload);
      if (status !== null) this.setOnline(entry, status === 1, status === 3);
      return;
    }
    for (const family of this.families) if (family.push?.(entry, namespace, payload, this.access)) return;
  }

  /** Pushes were missed (command channel down, device away): what we and the families knew may be stale. */
  private forget(entry: DeviceEntry): void {
    forgetStates(entry);
    for (const family of this.families) family.forget?.(entry);
  }

  private setOnline(entry: DeviceEntry, online: boolean, upgrading = false): void {
    if (entry.online === online && entry.upgrading === upgrading) return;
    entry.online = online;
    entry.upgrading = upgrading;
    if (!online) this.forget(entry);
    // The cloud's word on the device's own cloud connection; a device the LAN reaches stays usable.
    const [device] = this.describe([entry.def]);
    this.deps.emit({ type: 'online', uuid: entry.def.uuid, online: device?.online ?? online, upgrading });
    // Whether its pushes arrive changed with it (a device off its cloud broker is polled over the LAN).
    this.emitDevice(entry);
  }

  private record(entry: DeviceEntry, readings: ChannelReading[], source: 'command' | 'push'): void {
    entry.revision += 1;
    for (const { channel, on } of readings) {
      if (entry.states.get(channel) === on) continue;
      entry.states.set(channel, on);
      this.deps.emit({ type: 'channel', uuid: entry.def.uuid, channel, on, source });
    }
  }

  private setAbilities(entry: DeviceEntry, abilities: Abilities): void {
    entry.abilities = abilities;
    const capabilities = capabilitiesOf(this.families, abilities);
    for (const family of this.families) family.learn?.(entry, abilities, capabilities);
    entry.encrypted = abilities.has(ENCRYPTION_NAMESPACE);
  }

  /** The device's abilities, read once (one message) and kept until its firmware changes. */
  private async abilitiesOf(entry: DeviceEntry): Promise<Abilities> {
    if (entry.abilities) return entry.abilities;
    const abilities = parseAbilities(await this.send(entry, 'reading Appliance.System.Ability', get('Appliance.System.Ability')));
    if (!abilities) throw new AppError('CLOUD_ERROR', `Device ${entry.def.uuid} sent an unreadable Appliance.System.Ability answer`);
    this.setAbilities(entry, abilities);
    // Its capabilities may differ from what its type suggested: describe the device again.
    this.emitDevice(entry);
    this.deps.onLearned();
    return abilities;
  }

  private async assertCapability(entry: DeviceEntry, capability: Capability, namespace: string): Promise<void> {
    if (capabilitiesOf(this.families, await this.abilitiesOf(entry)).includes(capability)) return;
    throw notControllable(`Device ${entry.def.uuid} declares no ${capability} (${namespace})`);
  }

  /** The device, if a message can reach it now over the LAN or the cloud; else what stands in the way. */
  private assertReachable(uuid: string): DeviceEntry {
    const entry = this.entries.get(uuid);
    if (!entry) {
      this.deps.assertSessionUp();
      throw new AppError('DEVICE_NOT_FOUND', `No device with uuid ${uuid} in the Meross account`);
    }
    if (entry.upgrading) throw notControllable(`Device ${uuid} is installing a firmware update`);
    if (this.messenger.transportOf(entry) !== 'lan') this.assertCloudRoute(entry);
    return entry;
  }

  private assertCloudRoute(entry: DeviceEntry): void {
    const uuid = entry.def.uuid;
    this.deps.assertSessionUp();
    if (!entry.online) throw notControllable(`Device ${uuid} is offline`);
    if (!entry.object || !this.brokers.isUp(entry.def)) throw notControllable(`The command channel (MQTT) to device ${uuid} is not connected`);
  }

  private send(entry: DeviceEntry, what: string, request: DeviceRequest): Promise<unknown> {
    return this.messenger.send(entry, what, request);
  }
}

/** Appliance.Control.Multiple's maxCmdNum where the device declares it. */
function maxCommandsOf(abilities: Abilities | null): number | null {
  const declared = (abilities?.get('Appliance.Control.Multiple') as { maxCmdNum?: unknown } | undefined)?.maxCmdNum;
  return typeof declared === 'number' && declared > 1 ? declared : null;
}
