import type { Clock, Logger, Timer } from '@homeops/common/core';
import type { DeviceView } from '../../domain/device.js';
import type { DeviceService } from '../../domain/device.service.js';
import { ENERGY } from '../../families/energy/domain/energy.js';
import { HUBS } from '../../families/hub/domain/hubs.js';

/** What the reads use of the domain: the same reads GET /devices/{uuid}/energy and /hub make, and the budget's state. */
export type ReadOperations = Pick<DeviceService, 'listDevices' | 'health' | 'use'>;

/** Messages one round of a device's reads may send (a read and the abilities read before a first family call). */
const MESSAGES_PER_READ = 2;

/**
 * Energy plugs and hubs push nothing for Home Assistant to show: they are read every `intervalMs`, and only from the
 * share of each budget window that background work may spend (the last share stays for callers), so Home
 * Assistant never takes a command's room. A device on the LAN costs nothing and is always read. Each read
 * publishes its event, which the adapter turns into states.
 */
export class BudgetedReads {
  private timer: Timer | undefined;
  private running = false;

  constructor(private readonly options: { devices: ReadOperations; clock: Clock; logger: Logger; intervalMs: number }) {}

  start(): void {
    if (this.options.intervalMs <= 0) return;
    this.arm(0);
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  private arm(delayMs: number): void {
    this.timer = this.options.clock.setTimer(() => void this.round().finally(() => this.timer && this.arm(this.options.intervalMs)), delayMs);
  }

  private async round(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      let list: DeviceView[];
      try {
        list = this.options.devices.listDevices();
      } catch {
        return;
      }
      for (const device of list) {
        if (device.status !== 'online' || !this.timer) continue;
        if (device.capabilities.includes('energy'))
          await this.read(device, [(d) => d.use(ENERGY).readPower(device.uuid), (d) => d.use(ENERGY).readDaily(device.uuid)]);
        if (device.capabilities.includes('hubSensors')) await this.read(device, [(d) => d.use(HUBS).read(device.uuid)]);
      }
    } finally {
      this.running = false;
    }
  }

  private async read(device: DeviceView, reads: Array<(devices: ReadOperations) => Promise<unknown>>): Promise<void> {
    for (const read of reads) {
      if (device.link.transport !== 'lan' && !this.hasRoom()) return;
      try {
        await read(this.options.devices);
      } catch (err) {
        this.options.logger.debug({ err, uuid: device.uuid }, 'mqtt: a budgeted read failed; it is tried again next round');
        return;
      }
    }
  }

  /** Room in every window beyond what is kept for callers. */
  private hasRoom(): boolean {
    return this.options.devices.health().budget.windows.every((w) => w.remaining - w.reservedForCallers >= MESSAGES_PER_READ);
  }
}
