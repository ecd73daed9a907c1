import { AppError, TimeoutError, withTimeout, type Clock, type Logger } from '@homeops/common';
import type {
  Capability,
  CloudDevice,
  CloudEvent,
  CoverReading,
  DailyEnergy,
  GarageDoorReading,
  HubSubDeviceReading,
  LightChange,
  LightReading,
  PowerReading,
  ValveChange,
} from '../../domain/device-cloud.js';
import {
  capabilitiesOf,
  lightCommand,
  lightFeaturesOf,
  parseAbilities,
  parseLights,
  parseCoverMotions,
  parseCoverPositions,
  parseDailyEnergy,
  parsePower,
  parseGarageDoorAnswer,
  parseGarageDoors,
  parseHub,
  parseHubPush,
  parseValveModes,
  subDeviceNames,
  switchProtocolOf,
  VALVE_CUSTOM_MODE,
  type Abilities,
} from './meross-abilities.js';
import { MerossBrokers, type BrokerRecoveryOptions } from './meross-brokers.js';
import type { LibraryCallback, LibraryCloud, LibraryDevice, MerossDeviceDefinition } from './meross-library.js';
import {
  parseOnlineStatus,
  parseSystemAll,
  parseTogglePush,
  replyErrorCode,
  toCloudDevice,
  type ChannelReading,
  type SwitchProtocol,
} from './meross-payloads.js';
import type { SecretRedactor } from './meross-secrets.js';

interface DeviceEntry {
  def: MerossDeviceDefinition;
  object: LibraryDevice;
  online: boolean;
  /** onlineStatus 3: installing firmware. */
  upgrading: boolean;
  commandReady: boolean;
  /** The namespaces the device declared (Appliance.System.Ability), read before its first command. */
  abilities: Abilities | null;
  protocol: SwitchProtocol | null;
  states: Map<number, boolean>;
  /** A hub's valves: the mode each is in, as last read or pushed (a target change sets the custom mode only when needed). */
  valveModes: Map<string, number>;
  /** Counts state changes from pushes and commands, so a slower System.All answer cannot undo a newer one. */
  revision: number;
  /** Bumped when the command channel drops or the device goes offline: an answer sent before then is stale. */
  connection: number;
}

/** 409 with the spec's exact error text; the reason goes into details. */
function notControllable(reason: string): AppError {
  return new AppError('DEVICE_NOT_CONTROLLABLE', undefined, { details: [{ path: 'device', message: reason }] });
}

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
}

/** The account's device objects in meross-cloud: reconciled by uuid, commanded over MQTT, kept fresh from pushes. */
function forgetStates(entry: DeviceEntry): void {
  entry.states.clear();
  entry.valveModes.clear();
  entry.connection += 1;
}

export class MerossDevices {
  private readonly entries = new Map<string, DeviceEntry>();
  private readonly brokers: MerossBrokers;
  private lastMqttError: string | null = null;
  private stopped = false;

  constructor(private readonly deps: MerossDevicesDeps) {
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
    lib.on('deviceInitialized', (uuid: string, def: MerossDeviceDefinition, object: LibraryDevice) => this.adopt(uuid, def, object));
    for (const event of ['connected', 'close', 'reconnect']) lib.on(event, (uuid: string) => this.updateReady(uuid));
    lib.on('data', (uuid: string, namespace: string, payload: unknown) => this.onPush(uuid, namespace, payload));
  }

  /** Makes the entries match a fetched list: gone devices are dropped, presence follows the list. */
  reconcile(list: MerossDeviceDefinition[]): void {
    const uuids = new Set(list.map((d) => d.uuid));
    for (const uuid of this.entries.keys()) {
      if (uuids.has(uuid)) continue;
      this.entries.delete(uuid);
      this.brokers.forget(uuid);
      delete this.deps.lib.devices[uuid];
    }
    for (const def of list) {
      const entry = this.entries.get(def.uuid);
      if (!entry) continue;
      // New firmware may bring new abilities.
      if (entry.def.fmwareVersion !== def.fmwareVersion) entry.abilities = null;
      entry.def = def;
      entry.online = def.onlineStatus === 1;
      entry.upgrading = def.onlineStatus === 3;
      if (!entry.online) entry.states.clear();
    }
  }

  describe(list: MerossDeviceDefinition[]): CloudDevice[] {
    return list.map((def) => {
      const entry = this.entries.get(def.uuid);
      return toCloudDevice(def, {
        online: entry?.online ?? def.onlineStatus === 1,
        upgrading: entry?.upgrading ?? def.onlineStatus === 3,
        commandReady: entry?.commandReady ?? false,
        protocol: entry?.protocol ?? null,
        capabilities: entry?.abilities ? capabilitiesOf(entry.abilities) : null,
      });
    });
  }

  async readChannels(uuid: string): Promise<ChannelReading[]> {
    const entry = this.assertReachable(uuid);
    return this.read(entry);
  }

  async setChannel(uuid: string, channel: number, on: boolean): Promise<void> {
    const entry = this.assertReachable(uuid);
    // Never a switch command before the abilities say the device is a switch: a garage door opener may list ToggleX.
    await this.assertSwitch(entry);
    if (entry.protocol === 'toggle' && channel !== 0) {
      throw new AppError('VALIDATION_FAILED', `Device ${uuid} has only channel 0`, {
        details: [{ path: 'channel', message: 'this device has only channel 0' }],
      });
    }
    await this.send(entry, `switching channel ${channel}`, (object, done) =>
      entry.protocol === 'toggle' ? object.controlToggle(on, done) : object.controlToggleX(channel, on, done),
    );
    this.record(entry, [{ channel, on }], 'command');
  }

  async readGarageDoors(uuid: string): Promise<GarageDoorReading[]> {
    const entry = this.assertReachable(uuid);
    await this.assertCapability(entry, 'garageDoor', 'Appliance.GarageDoor.State');
    const payload = await this.send(entry, 'reading Appliance.GarageDoor.State', (object, done) =>
      object.publishMessage('GET', 'Appliance.GarageDoor.State', {}, done),
    );
    const doors = parseGarageDoors(payload);
    if (doors.length === 0) throw new AppError('CLOUD_ERROR', `Device ${uuid} sent an unreadable Appliance.GarageDoor.State answer`);
    return doors;
  }

  async setGarageDoor(uuid: string, channel: number, open: boolean): Promise<GarageDoorReading> {
    const entry = this.assertReachable(uuid);
    await this.assertCapability(entry, 'garageDoor', 'Appliance.GarageDoor.State');
    const payload = await this.send(entry, `${open ? 'opening' : 'closing'} garage door ${channel}`, (object, done) =>
      object.controlGarageDoor(channel, open, done),
    );
    const answer = parseGarageDoorAnswer(payload, channel, open);
    if (!answer) throw new AppError('CLOUD_ERROR', `Device ${uuid} sent an unreadable answer to the garage door command`);
    return answer;
  }

  async readCovers(uuid: string): Promise<CoverReading[]> {
    const entry = this.assertReachable(uuid);
    await this.assertCapability(entry, 'cover', 'Appliance.RollerShutter.*');
    const positions = parseCoverPositions(
      await this.send(entry, 'reading Appliance.RollerShutter.Position', (object, done) => object.getRollerShutterPosition(done)),
    );
    const motions = parseCoverMotions(await this.send(entry, 'reading Appliance.RollerShutter.State', (object, done) => object.getRollerShutterState(done)));
    if (positions.length === 0) throw new AppError('CLOUD_ERROR', `Device ${uuid} sent an unreadable Appliance.RollerShutter.Position answer`);
    return positions.map(({ channel, position }) => ({ channel, position, motion: motions.find((m) => m.channel === channel)?.motion ?? 'idle' }));
  }

  async moveCover(uuid: string, channel: number, target: number | 'stop'): Promise<void> {
    const entry = this.assertReachable(uuid);
    await this.assertCapability(entry, 'cover', 'Appliance.RollerShutter.*');
    // Meross's position -1 stops the cover where it is.
    await this.send(entry, target === 'stop' ? `stopping cover ${channel}` : `moving cover ${channel} to ${target}`, (object, done) =>
      object.controlRollerShutterPosition(channel, target === 'stop' ? -1 : target, done),
    );
  }

  async readLight(uuid: string): Promise<LightReading[]> {
    const entry = this.assertReachable(uuid);
    await this.assertCapability(entry, 'light', 'Appliance.Control.Light');
    const supports = lightFeaturesOf(await this.abilitiesOf(entry));
    const payload = await this.send(entry, 'reading Appliance.System.All', (object, done) => object.getSystemAllData(done));
    const digest = (payload as { all?: { digest?: { light?: unknown } } } | null)?.all?.digest;
    const lights = parseLights(digest?.light);
    if (lights.length === 0) throw new AppError('CLOUD_ERROR', `Device ${uuid} reported no light in Appliance.System.All`);
    return lights.map((l) => ({ channel: l.channel, brightness: l.brightness ?? null, temperature: l.temperature ?? null, rgb: l.rgb ?? null, supports }));
  }

  async setLight(uuid: string, channel: number, change: LightChange): Promise<void> {
    const entry = this.assertReachable(uuid);
    await this.assertCapability(entry, 'light', 'Appliance.Control.Light');
    await this.send(entry, 'setting Appliance.Control.Light', (object, done) => object.controlLight(lightCommand(channel, change), done));
  }

  async readPower(uuid: string): Promise<PowerReading> {
    const entry = this.assertReachable(uuid);
    await this.assertCapability(entry, 'energy', 'Appliance.Control.Electricity');
    const payload = await this.send(entry, 'reading Appliance.Control.Electricity', (object, done) => object.getControlElectricity(done));
    const reading = parsePower(payload);
    if (!reading) throw new AppError('CLOUD_ERROR', `Device ${uuid} sent an unreadable Appliance.Control.Electricity answer`);
    return reading;
  }

  async readDailyEnergy(uuid: string): Promise<DailyEnergy[]> {
    const entry = this.assertReachable(uuid);
    await this.assertCapability(entry, 'energy', 'Appliance.Control.ConsumptionX');
    const payload = await this.send(entry, 'reading Appliance.Control.ConsumptionX', (object, done) => object.getControlPowerConsumptionX(done));
    const days = parseDailyEnergy(payload);
    if (!days) throw new AppError('CLOUD_ERROR', `Device ${uuid} sent an unreadable Appliance.Control.ConsumptionX answer`);
    return days;
  }

  async readHub(uuid: string): Promise<HubSubDeviceReading[]> {
    const entry = this.assertReachable(uuid);
    await this.assertCapability(entry, 'hubSensors', 'Appliance.Hub.*');
    const get = (namespace: string, payload: unknown) =>
      this.send(entry, `reading ${namespace}`, (object, done) => object.publishMessage('GET', namespace, payload, done));
    const valves = await get('Appliance.Hub.Mts100.All', { all: [] });
    this.learnValveModes(entry, 'Appliance.Hub.Mts100.All', valves);
    const sensors = await get('Appliance.Hub.Sensor.All', { all: [] });
    const battery = await get('Appliance.Hub.Battery', { battery: [] });
    return parseHub(valves, sensors, battery, subDeviceNames(entry.object.subDeviceList));
  }

  async setValve(uuid: string, id: string, change: ValveChange): Promise<void> {
    const entry = this.assertReachable(uuid);
    await this.assertCapability(entry, 'hubSensors', 'Appliance.Hub.*');
    const set = (what: string, payload: unknown) => this.send(entry, what, (object, done) => object.publishMessage('SET', what, payload, done));
    if (change.on !== undefined) await set('Appliance.Hub.ToggleX', { togglex: [{ id, onoff: change.on ? 1 : 0 }] });
    if (change.targetTemperature !== undefined) {
      // The valve heats to the target of its mode: set the custom target, then the custom mode, as the app does;
      // a valve known to be in the custom mode already needs no second message.
      await set('Appliance.Hub.Mts100.Temperature', { temperature: [{ id, custom: Math.round(change.targetTemperature * 10) }] });
      if (entry.valveModes.get(id) !== VALVE_CUSTOM_MODE) {
        await set('Appliance.Hub.Mts100.Mode', { mode: [{ id, state: VALVE_CUSTOM_MODE }] });
        entry.valveModes.set(id, VALVE_CUSTOM_MODE);
      }
    }
  }

  /** Cancels the library's pending reply timers and closes the broker connections (without logging out). */
  stop(): void {
    this.stopped = true;
    for (const device of Object.values(this.deps.lib.devices)) {
      for (const waiting of Object.values(device.waitingMessageIds)) clearTimeout(waiting.timeout);
    }
    this.brokers.stop();
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
      const online = def.onlineStatus === 1;
      this.entries.set(uuid, {
        def,
        object,
        online,
        upgrading: def.onlineStatus === 3,
        commandReady: false,
        abilities: null,
        protocol: null,
        states: new Map(),
        valveModes: new Map(),
        revision: 0,
        connection: 0,
      });
      return;
    }
    // A re-fetch replaces the library's device object: replies to commands in flight now reach the new one.
    if (entry.object !== object) Object.assign(object.waitingMessageIds, entry.object.waitingMessageIds);
    entry.def = def;
    entry.object = object;
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
    else forgetStates(entry);
    this.deps.log.info({ uuid, commandReady: ready }, 'meross command channel changed');
    // No state read here: a flapping broker would send one per device per reconnect. The service decides when
    // to read (within its command budget); it learns from this event that the channel is back.
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
    if (namespace === 'Appliance.GarageDoor.State') {
      const doors = parseGarageDoors(payload);
      if (doors.length > 0) this.setOnline(entry, true);
      for (const { channel, state } of doors) this.deps.emit({ type: 'garageDoor', uuid: entry.def.uuid, channel, state, source: 'push' });
      return;
    }
    if (namespace.startsWith('Appliance.Hub.')) {
      this.learnValveModes(entry, namespace, payload);
      for (const { id, change } of parseHubPush(namespace, payload)) {
        if (Object.keys(change).length > 0) this.deps.emit({ type: 'hubDevice', uuid: entry.def.uuid, id, change, source: 'push' });
      }
      return;
    }
    if (namespace === 'Appliance.Control.Light') {
      for (const light of parseLights((payload as { light?: unknown } | null)?.light))
        this.deps.emit({ type: 'light', uuid: entry.def.uuid, source: 'push', ...light });
      return;
    }
    if (namespace === 'Appliance.RollerShutter.Position' || namespace === 'Appliance.RollerShutter.State') {
      const uuid = entry.def.uuid;
      if (namespace.endsWith('Position')) {
        for (const { channel, position } of parseCoverPositions(payload)) this.deps.emit({ type: 'cover', uuid, channel, position, source: 'push' });
      } else {
        for (const { channel, motion } of parseCoverMotions(payload)) this.deps.emit({ type: 'cover', uuid, channel, motion, source: 'push' });
      }
      return;
    }
    const readings = parseTogglePush(namespace, payload);
    if (readings.length === 0) return;
    this.setOnline(entry, true);
    this.record(entry, readings, 'push');
  }

  private learnValveModes(entry: DeviceEntry, namespace: string, payload: unknown): void {
    for (const [id, mode] of parseValveModes(namespace, payload)) entry.valveModes.set(id, mode);
  }

  private setOnline(entry: DeviceEntry, online: boolean, upgrading = false): void {
    if (entry.online === online && entry.upgrading === upgrading) return;
    entry.online = online;
    entry.upgrading = upgrading;
    if (!online) forgetStates(entry);
    this.deps.emit({ type: 'online', uuid: entry.def.uuid, online, upgrading });
  }

  private record(entry: DeviceEntry, readings: ChannelReading[], source: 'command' | 'push'): void {
    entry.revision += 1;
    for (const { channel, on } of readings) {
      if (entry.states.get(channel) === on) continue;
      entry.states.set(channel, on);
      this.deps.emit({ type: 'channel', uuid: entry.def.uuid, channel, on, source });
    }
  }

  /** The device's abilities, read once (one message) and kept until its firmware changes. */
  private async abilitiesOf(entry: DeviceEntry): Promise<Abilities> {
    if (entry.abilities) return entry.abilities;
    const payload = await this.send(entry, 'reading Appliance.System.Ability', (object, done) => object.getSystemAbilities(done));
    const abilities = parseAbilities(payload);
    if (!abilities) throw new AppError('CLOUD_ERROR', `Device ${entry.def.uuid} sent an unreadable Appliance.System.Ability answer`);
    entry.abilities = abilities;
    entry.protocol = switchProtocolOf(abilities);
    // Its capabilities may differ from what its type suggested: describe the device again.
    this.emitDevice(entry);
    return abilities;
  }

  private async assertSwitch(entry: DeviceEntry): Promise<void> {
    const capabilities = capabilitiesOf(await this.abilitiesOf(entry));
    if (capabilities.includes('switch')) return;
    const what = capabilities.includes('garageDoor') ? 'is a garage door opener' : capabilities.includes('cover') ? 'is a cover' : 'declares no switch';
    throw notControllable(`Device ${entry.def.uuid} ${what}; it is never sent a switch command`);
  }

  private async assertCapability(entry: DeviceEntry, capability: Capability, namespace: string): Promise<void> {
    if (capabilitiesOf(await this.abilitiesOf(entry)).includes(capability)) return;
    throw notControllable(`Device ${entry.def.uuid} declares no ${capability} (${namespace})`);
  }

  private async read(entry: DeviceEntry): Promise<ChannelReading[]> {
    // A state read (GET) is harmless to any device, and its abilities cost a message: they are read before the
    // first command instead. Known ones still refuse a device that is no switch.
    if (entry.abilities) await this.assertSwitch(entry);
    const { revision, connection } = entry;
    const payload = await this.send(entry, 'reading Appliance.System.All', (object, done) => object.getSystemAllData(done));
    const all = parseSystemAll(payload);
    if (!all) throw new AppError('CLOUD_ERROR', `Device ${entry.def.uuid} sent an unreadable Appliance.System.All answer`);
    if (!entry.abilities && entry.protocol !== all.protocol) {
      // Until the abilities are read, System.All tells how the device switches (a hub reports no switch).
      entry.protocol = all.protocol;
      this.emitDevice(entry);
    }
    if (entry.connection !== connection) throw notControllable(`The command channel (MQTT) to device ${entry.def.uuid} dropped while its state was read`);
    // A push or a command that came while the answer was on its way is newer than the answer: it wins.
    const changed = entry.revision !== revision;
    return all.channels.map(({ channel, on }) => {
      const known = entry.states.get(channel);
      if (changed && known !== undefined) return { channel, on: known };
      entry.states.set(channel, on);
      return { channel, on };
    });
  }

  private assertReachable(uuid: string): DeviceEntry {
    this.deps.assertSessionUp();
    const entry = this.entries.get(uuid);
    if (!entry) throw new AppError('DEVICE_NOT_FOUND', `No device with uuid ${uuid} in the Meross account`);
    if (entry.upgrading) throw notControllable(`Device ${uuid} is installing a firmware update`);
    if (!entry.online) throw notControllable(`Device ${uuid} is offline`);
    if (!this.brokers.isUp(entry.def)) {
      throw notControllable(`The command channel (MQTT) to device ${uuid} is not connected`);
    }
    return entry;
  }

  /** One MQTT request through the library, bounded by our timeout; an ERROR reply is a failure. */
  private async send(entry: DeviceEntry, what: string, run: (object: LibraryDevice, done: LibraryCallback<unknown>) => void): Promise<unknown> {
    const uuid = entry.def.uuid;
    const work = new Promise<unknown>((resolve, reject) => {
      run(entry.object, (err, payload) => (err ? reject(err) : resolve(payload)));
    });
    let payload: unknown;
    try {
      payload = await withTimeout(work, this.deps.commandTimeoutMs, what);
    } catch (err) {
      if (err instanceof TimeoutError || (err instanceof Error && err.message === 'Timeout')) {
        throw new AppError('CLOUD_TIMEOUT', `Device ${uuid} did not answer ${what} within ${this.deps.commandTimeoutMs} ms`);
      }
      if (err instanceof Error && err.message.includes('no data connection')) {
        throw notControllable(`The command channel (MQTT) to device ${uuid} is not connected`);
      }
      throw new AppError('CLOUD_ERROR', `Device ${uuid}: ${what} failed (${this.deps.redactor.describe(err)})`);
    }
    const code = replyErrorCode(payload);
    if (code !== null) throw new AppError('CLOUD_ERROR', `Device ${uuid} answered ERROR (code ${code}) to ${what}`);
    return payload;
  }
}
