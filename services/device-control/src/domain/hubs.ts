import { AppError } from '@homeops/common';
import type { HubSubDeviceReading, ValveChange } from './device-cloud.js';
import { DeviceActions, type DeviceActionsDeps } from './device-actions.js';
import type { Aged } from './energy.js';

/** What a valve command did. */
export interface ValveResult {
  device: string;
  id: string;
  applied: ValveChange;
}

/**
 * Hubs (msh300) and the devices behind them: readings and batteries on request, cached for `maxAgeMs` (each answer
 * says how old it is); valves on/off and target temperature, checked against the valve's own range.
 */
export class Hubs extends DeviceActions {
  protected readonly capability = 'hubSensors' as const;
  protected readonly actionText = 'read devices behind a hub';
  private readonly readings = new Map<string, { subdevices: HubSubDeviceReading[]; at: number }>();

  constructor(
    deps: DeviceActionsDeps,
    private readonly maxAgeMs = 60_000,
  ) {
    super(deps);
  }

  /** A push from a device behind the hub: merged into the last reading (a device not read yet waits for the next read). */
  apply(uuid: string, id: string, change: Partial<HubSubDeviceReading>): void {
    const entry = this.readings.get(uuid);
    if (!entry || !entry.subdevices.some((s) => s.id === id)) return;
    entry.subdevices = entry.subdevices.map((s) => (s.id === id ? { ...s, ...change, id } : s));
    const name = this.deps.registry.get(uuid)?.name ?? uuid;
    this.deps.publish({ type: 'hub', uuid, name, at: new Date(entry.at).toISOString(), subdevices: entry.subdevices.map((s) => ({ ...s })), source: 'push' });
  }

  forget(uuid: string): void {
    this.readings.delete(uuid);
  }

  /** The hub's devices: cached while fresh, else read (three messages). */
  async read(uuid: string): Promise<Aged<HubSubDeviceReading[]>> {
    this.deviceWith(uuid);
    const cached = this.readings.get(uuid);
    if (cached && this.deps.clock.now() - cached.at < this.maxAgeMs) return this.aged(cached);
    await this.admitted(uuid, 3, () => this.readNow(uuid, 'read'));
    return this.aged(this.readings.get(uuid)!);
  }

  /** Turns a valve on/off and/or sets its target; refused before sending for a sensor or a target outside its range. */
  async setValve(uuid: string, id: string, change: ValveChange): Promise<ValveResult> {
    const known = this.readings.get(uuid)?.subdevices.find((s) => s.id === id);
    if (known) assertValveChange(uuid, known, change);
    const messages = (change.on !== undefined ? 1 : 0) + (change.targetTemperature !== undefined ? 2 : 0);
    return this.admitted(uuid, messages + (known ? 0 : 3), async (device) => {
      if (!known) {
        await this.readNow(uuid, 'read');
        const read = this.readings.get(uuid)?.subdevices.find((s) => s.id === id);
        if (!read) throw new AppError('DEVICE_NOT_FOUND', `Hub ${uuid} has no device ${id}`, { solution: `See GET /devices/${uuid}/hub for its devices` });
        assertValveChange(uuid, read, change);
      }
      await this.call(`setting valve ${id} of hub ${uuid}`, () => this.deps.cloud.setValve(uuid, id, change));
      const entry = this.readings.get(uuid);
      if (entry) {
        entry.subdevices = entry.subdevices.map((s) => (s.id === id ? { ...s, ...change } : s));
        this.deps.publish({ type: 'hub', uuid, name: device.name, at: new Date(entry.at).toISOString(), subdevices: entry.subdevices, source: 'command' });
      }
      return { device: device.name, id, applied: change };
    });
  }

  private async readNow(uuid: string, source: 'read'): Promise<void> {
    const subdevices = await this.call(`reading hub ${uuid}`, () => this.deps.cloud.readHub(uuid));
    const entry = { subdevices, at: this.deps.clock.now() };
    this.readings.set(uuid, entry);
    const name = this.deps.registry.get(uuid)?.name ?? uuid;
    this.deps.publish({ type: 'hub', uuid, name, at: new Date(entry.at).toISOString(), subdevices, source });
  }

  private aged(entry: { subdevices: HubSubDeviceReading[]; at: number }): Aged<HubSubDeviceReading[]> {
    return { reading: entry.subdevices.map((s) => ({ ...s })), at: new Date(entry.at).toISOString(), ageSeconds: Math.floor((this.deps.clock.now() - entry.at) / 1000) };
  }
}

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
