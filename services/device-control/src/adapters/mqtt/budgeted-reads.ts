import type { Clock, Logger, Timer } from '@homeops/common/core';
import type { Capability } from '../../domain/device-cloud.js';
import type { DeviceView } from '../../domain/device.js';
import type { BudgetedRead, ReadOperations } from './mqtt-family.js';

export type { ReadOperations } from './mqtt-family.js';

/** Messages one round of a device's reads may send (a read and the abilities read before a first family call). */
const MESSAGES_PER_READ = 2;

/**
 * Devices of some families push nothing for Home Assistant to show: their families' reads (`reads`) are made every
 * `intervalMs`, and only from the share of each budget window that background work may spend (the last share stays for callers), so Home
 * Assistant never takes a command's room. A device on the LAN costs nothing and is always read. Each read
 * publishes its event, which the adapter turns into states.
 */
export class BudgetedReads {
  private timer: Timer | undefined;
  private running = false;

  constructor(private readonly options: { devices: ReadOperations; clock: Clock; logger: Logger; intervalMs: number; reads: readonly BudgetedRead[] }) {}

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
        for (const { capability, reads } of this.options.reads) if (device.capabilities.includes(capability as Capability)) await this.read(device, reads);
      }
    } finally {
      this.running = false;
    }
  }

  private async read(device: DeviceView, reads: BudgetedRead['reads']): Promise<void> {
    for (const read of reads) {
      if (device.link.transport !== 'lan' && !this.hasRoom()) return;
      try {
        await read(this.options.devices, device.uuid);
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
