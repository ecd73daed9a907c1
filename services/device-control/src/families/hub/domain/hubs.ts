import { HUB_WATCHES } from './hub.watches.js';
import { AppError } from '@homeops/common/core';
import type { HubSubDeviceReading, ValveChange } from './hub.types.js';
import type { DomainFamily } from '../../../domain/device-family.js';
import type { CloudEvent } from '../../../domain/device-cloud.js';
import { DeviceActions, type Aged, type Cached, type DeviceActionsDeps } from '../../../domain/device-actions.js';

/** What a valve command did. */
export interface ValveResult {
  device: string;
  id: string;
  applied: ValveChange;
}

/**
 * Hubs (msh300) and the devices behind them: readings and batteries on request, cached for `maxAgeMs` (each answer
 * says how old it is); valves on/off and target temperature, checked against the valve's own range. Every call
 * also reserves the abilities read sent before a device's first family call (see DeviceActions).
 */
export class Hubs extends DeviceActions {
  protected readonly capability = 'hubSensors' as const;
  protected readonly actionText = 'read devices behind a hub';
  private readonly readings = new Map<string, Cached<HubSubDeviceReading[]>>();
  /** Hubs read because a push came before any read (a sensor's alarm must not wait for someone to ask). */
  private readonly pushReads = new Map<string, Promise<void>>();

  constructor(
    deps: DeviceActionsDeps,
    private readonly maxAgeMs = 60_000,
  ) {
    super(deps);
  }

  /**
   * A push from a device behind the hub: merged into the last reading. A hub not read yet is read once (in the
   * background share, free over the LAN), and that read carries what the push said.
   */
  apply(uuid: string, id: string, change: Partial<HubSubDeviceReading>): void {
    if (!this.readings.has(uuid)) this.readAfterPush(uuid);
    else this.merge(uuid, id, change, 'push');
  }

  onCloudEvent(event: CloudEvent): void {
    if (event.type === 'hubDevice') this.apply(event.uuid, event.id, event.change);
  }

  forget(uuid: string): void {
    this.readings.delete(uuid);
  }

  /** Every hub's devices as last read or pushed (no I/O): what the metrics count. */
  known(): HubSubDeviceReading[] {
    return [...this.readings.values()].flatMap((entry) => entry.reading);
  }

  /** The hub's devices: cached while fresh, else read (three messages, and the abilities). */
  async read(uuid: string): Promise<Aged<HubSubDeviceReading[]>> {
    this.deviceWith(uuid);
    await this.pushReads.get(uuid);
    const cached = this.fresh(this.readings.get(uuid), this.maxAgeMs);
    if (cached) return cached;
    await this.admitted(uuid, 4, () => this.readNow(uuid));
    return this.aged(this.readings.get(uuid)!);
  }

  /** Turns a valve on/off and/or sets its target; refused before sending for a sensor or a target outside its range. */
  async setValve(uuid: string, id: string, change: ValveChange): Promise<ValveResult> {
    const known = this.subdevice(uuid, id);
    if (known) assertValveChange(uuid, known, change);
    // A target is the custom target and, unless the valve already is in the custom mode, that mode.
    const messages = (change.on !== undefined ? 1 : 0) + (change.targetTemperature !== undefined ? 2 : 0) + 1;
    return this.admitted(uuid, messages + (known ? 0 : 3), async (device) => {
      if (!known) {
        await this.readNow(uuid);
        const read = this.subdevice(uuid, id);
        if (!read) throw new AppError('DEVICE_NOT_FOUND', `Hub ${uuid} has no device ${id}`, { solution: `See GET /devices/${uuid}/hub for its devices` });
        assertValveChange(uuid, read, change);
      }
      await this.call(`setting valve ${id} of hub ${uuid}`, () => this.deps.cloud.setValve(uuid, id, change));
      this.merge(uuid, id, change, 'command');
      return { device: device.name, id, applied: change };
    });
  }

  private readAfterPush(uuid: string): void {
    if (this.pushReads.has(uuid) || this.deps.registry.get(uuid)?.capabilities.includes(this.capability) !== true) return;
    const admission = this.deps.routes.tryAdmit(uuid, 4, 'background');
    if (!admission) return;
    const read = this.deps.queue
      .run(uuid, () => this.deps.routes.run(admission, uuid, () => (this.readings.has(uuid) ? Promise.resolve() : this.readNow(uuid))))
      // A failed read leaves the hub unread: the next push tries again.
      .catch(() => undefined)
      .finally(() => this.pushReads.delete(uuid));
    this.pushReads.set(uuid, read);
  }

  private subdevice(uuid: string, id: string): HubSubDeviceReading | undefined {
    return this.readings.get(uuid)?.reading.find((s) => s.id === id);
  }

  private async readNow(uuid: string): Promise<void> {
    const reading = await this.call(`reading hub ${uuid}`, () => this.deps.cloud.readHub(uuid));
    this.readings.set(uuid, { reading, at: this.deps.clock.now() });
    this.announce(uuid, 'read');
  }

  /** What a command or a push changed of one device, into the last reading, and announced. */
  private merge(uuid: string, id: string, change: Partial<HubSubDeviceReading>, source: 'command' | 'push'): void {
    const entry = this.readings.get(uuid);
    if (!entry || !entry.reading.some((s) => s.id === id)) return;
    entry.reading = entry.reading.map((s) => (s.id === id ? { ...s, ...change, id } : s));
    this.announce(uuid, source);
  }

  private announce(uuid: string, source: 'command' | 'push' | 'read'): void {
    const entry = this.readings.get(uuid);
    if (!entry) return;
    const name = this.deps.registry.get(uuid)?.name ?? uuid;
    this.deps.publish({ type: 'hub', uuid, name, at: new Date(entry.at).toISOString(), subdevices: entry.reading.map((s) => ({ ...s })), source });
  }
}

/** Hubs, as the device service builds them. */
export const HUBS: DomainFamily<Hubs> = {
  capability: 'hubSensors',
  create: (deps) => new Hubs(deps),
  watches: HUB_WATCHES,
  refusal: { instead: (at) => `See the devices behind it with GET ${at}/hub; set a valve with PUT ${at}/hub/{id}` },
};

function assertValveChange(uuid: string, sub: HubSubDeviceReading, change: ValveChange): void {
  if (sub.kind !== 'valve') {
    throw new AppError('DEVICE_NOT_CONTROLLABLE', `Device ${sub.id} behind hub ${uuid} is a ${sub.kind}, not a valve`, {
      solution: `Read it with GET /devices/${uuid}/hub`,
      details: [{ path: 'id', message: `${sub.id} is not a valve` }],
    });
  }
  const target = change.targetTemperature;
  const min = sub.minTemperature ?? 5;
  const max = sub.maxTemperature ?? 35;
  if (target !== undefined && (target < min || target > max)) {
    throw new AppError('VALIDATION_FAILED', `Target temperature ${target} °C is outside what valve ${sub.id} takes`, {
      details: [{ path: 'targetTemperature', message: `must be between ${min} and ${max}` }],
    });
  }
}
