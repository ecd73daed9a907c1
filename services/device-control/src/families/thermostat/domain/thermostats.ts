import { AppError } from '@homeops/common/core';
import type { ThermostatChange, ThermostatReading } from './thermostat.types.js';
import type { DomainFamily } from '../../../domain/device-family.js';
import type { CloudEvent } from '../../../domain/device-cloud.js';
import { DeviceActions, type Aged } from '../../../domain/device-actions.js';
import { assertChannelOf } from '../../../domain/device-rules.js';

/** What a thermostat command did: the change, with the mode the thermostat is in after it when that changed. */
export interface ThermostatResult {
  device: string;
  channel: number;
  applied: ThermostatChange;
}

interface Known {
  reading: ThermostatReading;
  at: number;
}

/** The most messages a read sends: Mode with Overheat and Sensor (an MTS200B), or ModeB with CtlRange (an MTS960). */
const READ_MESSAGES = 3;

/** Modes whose target is not their own: a target given with them is refused (a target alone leaves them). */
const NO_OWN_TARGET = new Set(['auto', 'timer']);

/**
 * Thermostats (mts200, mts960): what they report, kept current by their pushes (or the LAN poll) and read when
 * unknown; on/off, mode and target in one SET, refused before sending outside the thermostat's range, off a 0.5 °C
 * step or in a mode it lacks.
 */
export class Thermostats extends DeviceActions {
  protected readonly capability = 'thermostat' as const;
  protected readonly actionText = 'run a thermostat';
  private readonly states = new Map<string, Map<number, Known>>();
  /** Thermostats read because a push came before any read (a change at the device must not wait for someone to ask). */
  private readonly pushReads = new Map<string, Promise<void>>();

  /**
   * What the thermostat told. A push before the first read that does not say everything a read does starts one read
   * (in the background share, free over the LAN), which tells the state the push changed.
   */
  apply(uuid: string, told: Partial<ThermostatReading> & { channel: number }, source: 'command' | 'push' | 'read'): void {
    const device = this.deps.registry.get(uuid);
    if (!device) return;
    const known = this.states.get(uuid) ?? new Map<number, Known>();
    const before = known.get(told.channel)?.reading;
    const merged = { ...before, ...defined(told) } as Partial<ThermostatReading>;
    if (!isComplete(merged)) {
      if (source === 'push') this.readAfterPush(uuid);
      return;
    }
    const reading: ThermostatReading = { windowOpen: null, ...merged };
    this.states.set(uuid, known);
    known.set(told.channel, { reading, at: this.deps.clock.now() });
    this.deps.publish({ type: 'thermostat', uuid, name: device.name, ...copy(reading), source });
  }

  onCloudEvent(event: CloudEvent): void {
    if (event.type !== 'thermostat') return;
    const { type: _type, uuid, source, ...told } = event;
    this.apply(uuid, told, source);
  }

  forget(uuid: string): void {
    this.states.delete(uuid);
  }

  /**
   * Every thermostat channel, as last told; read from the device when unknown: one message, and one more for each of an
   * MTS960's range or an MTS200B's overheat protection and sensor (at most three).
   */
  async read(uuid: string): Promise<Aged<ThermostatReading[]>> {
    this.deviceWith(uuid);
    await this.pushReads.get(uuid);
    if (!this.states.has(uuid)) await this.admitted(uuid, READ_MESSAGES + this.deps.routes.abilitiesReadBefore(uuid), () => this.readNow(uuid));
    const known = [...(this.states.get(uuid)?.values() ?? [])].sort((a, b) => a.reading.channel - b.reading.channel);
    if (known.length === 0) throw new AppError('CLOUD_ERROR', `Device ${uuid} reported no thermostat`);
    const at = Math.max(...known.map((k) => k.at));
    return this.aged({ reading: known.map((k) => copy(k.reading)), at });
  }

  /** One SET of the change, checked against what the thermostat reports (read first when unknown). */
  async set(uuid: string, channel: number, change: ThermostatChange): Promise<ThermostatResult> {
    const device = this.deviceWith(uuid);
    assertChannelOf(device, channel);
    assertCoherent(change);
    const known = this.states.get(uuid)?.get(channel)?.reading;
    if (known) assertFits(known, change);
    return this.admitted(uuid, (known ? 1 : 1 + READ_MESSAGES) + this.deps.routes.abilitiesReadBefore(uuid), async (current) => {
      if (!known) await this.readNow(uuid);
      const before = this.states.get(uuid)?.get(channel)?.reading;
      if (!before) throw new AppError('CLOUD_ERROR', `Thermostat ${uuid} did not report channel ${channel}`);
      if (!known) assertFits(before, change);
      const after = await this.call(`setting thermostat ${uuid}`, () => this.deps.cloud.setThermostat(uuid, channel, change));
      this.apply(uuid, after, 'command');
      const mode = after.mode ?? change.mode;
      const applied = { ...change, ...(mode !== undefined && (change.mode !== undefined || mode !== before.mode) ? { mode } : {}) };
      return { device: current.name, channel, applied };
    });
  }

  /** What is known of a device's thermostats now, without reading (the metrics). */
  known(): Array<{ uuid: string; name: string; reading: ThermostatReading }> {
    return [...this.states].flatMap(([uuid, channels]) =>
      [...channels.values()].map((k) => ({ uuid, name: this.deps.registry.get(uuid)?.name ?? uuid, reading: copy(k.reading) })),
    );
  }

  private readAfterPush(uuid: string): void {
    if (this.states.has(uuid) || this.pushReads.has(uuid) || this.deps.registry.get(uuid)?.capabilities.includes(this.capability) !== true) return;
    const admission = this.deps.routes.tryAdmit(uuid, READ_MESSAGES + this.deps.routes.abilitiesReadBefore(uuid), 'background');
    if (!admission) return;
    const read = this.deps.queue
      .run(uuid, () => this.deps.routes.run(admission, uuid, () => (this.states.has(uuid) ? Promise.resolve() : this.readNow(uuid))))
      // A failed read leaves the thermostat unread: the next push tries again.
      .catch(() => undefined)
      .finally(() => this.pushReads.delete(uuid));
    this.pushReads.set(uuid, read);
  }

  private async readNow(uuid: string): Promise<void> {
    const readings = await this.call(`reading thermostat ${uuid}`, () => this.deps.cloud.readThermostats(uuid));
    for (const r of readings) this.apply(uuid, r, 'read');
  }
}

/** Thermostats, as the device service builds them. */
export const THERMOSTATS: DomainFamily<Thermostats> = {
  capability: 'thermostat',
  create: (deps) => new Thermostats(deps),
  refusal: { is: 'a thermostat', instead: (at) => `Read it with GET ${at}/thermostat; change it with PUT ${at}/thermostat/{channel}` },
};

/** What a reading must say before it is shown; overheat and sensor are null where the thermostat has none. */
const REQUIRED = [
  'on',
  'mode',
  'modes',
  'currentTemperature',
  'targetTemperature',
  'heating',
  'cooling',
  'minTemperature',
  'maxTemperature',
  'overheat',
  'sensor',
] as const;

function isComplete(r: Partial<ThermostatReading>): r is Omit<ThermostatReading, 'windowOpen'> & Partial<ThermostatReading> {
  return REQUIRED.every((key) => r[key] !== undefined);
}

function defined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

const copy = (r: ThermostatReading): ThermostatReading => ({ ...r, modes: [...r.modes], overheat: r.overheat && { ...r.overheat } });

const refuse = (path: string, message: string, text: string) => new AppError('VALIDATION_FAILED', text, { details: [{ path, message }] });

function assertCoherent(change: ThermostatChange): void {
  if (change.mode !== undefined && change.targetTemperature !== undefined && NO_OWN_TARGET.has(change.mode)) {
    throw refuse('targetTemperature', `mode ${change.mode} has no target of its own; give the mode or a target`, `Mode ${change.mode} takes no target`);
  }
}

function assertFits(thermostat: ThermostatReading, change: ThermostatChange): void {
  if (change.mode !== undefined && !thermostat.modes.includes(change.mode)) {
    throw refuse('mode', `must be one of ${thermostat.modes.join(', ')}`, `This thermostat has no ${change.mode} mode`);
  }
  const target = change.targetTemperature;
  const { minTemperature: min, maxTemperature: max } = thermostat;
  if (target !== undefined && (target < min || target > max)) {
    throw refuse('targetTemperature', `must be between ${min} and ${max}`, `Target temperature ${target} °C is outside what the thermostat takes`);
  }
  if (target !== undefined && !Number.isInteger(target * 2)) throw refuse('targetTemperature', 'must be in steps of 0.5', 'Targets go in steps of 0.5 °C');
}
