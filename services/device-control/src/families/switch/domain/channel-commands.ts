import { AppError, isoNow } from '@homeops/common/core';
import type { BackgroundStateReads } from '../../../domain/background-reads.js';
import { callCloud } from '../../../domain/cloud-call.js';
import type { DeviceActionsDeps } from '../../../domain/device-actions.js';
import type { DeviceCloud } from '../../../domain/device-cloud.js';
import type { DeviceRegistry } from '../../../domain/device-registry.js';
import { describeUnreachable, type Device } from '../../../domain/device.js';
import type { DomainFamily, FamilyState } from '../../../domain/device-family.js';
import { assertChannelOf, assertKnownDevice } from '../../../domain/device-rules.js';
import type { Admission, LanOrCloud } from '../../../domain/lan-or-cloud.js';

/** What a switch command did. */
export interface ChannelCommandResult {
  device: string;
  channel: number;
  on: boolean;
}

/**
 * Switching and reading channels: checks, the account budget (for the cloud route), the per-device queue, our own
 * timeouts. The channels' states live in the registry (a push or a read records them there), so the family keeps
 * nothing of its own; it reads unknown states in the background.
 */
export class ChannelCommands implements FamilyState {
  private readonly cloud: DeviceCloud;
  private readonly registry: DeviceRegistry;
  private readonly routes: LanOrCloud;
  readonly backgroundReads: BackgroundStateReads = {
    needsRead: (uuid) => this.needsStateRead(uuid),
    read: (uuid, admission, wanted) => this.readInBackground(uuid, admission, wanted),
  };

  constructor(private readonly deps: DeviceActionsDeps) {
    this.cloud = deps.cloud;
    this.registry = deps.registry;
    this.routes = deps.routes;
  }

  onCloudEvent(): void {}

  forget(): void {}

  counts(devices: readonly Device[]): { awaitingCommandChannel: number } {
    return { awaitingCommandChannel: devices.filter((d) => d.presence === 'online' && d.switchable === true && !d.commandReady).length };
  }

  /**
   * Flips a channel; an unknown state is read from the device first (two messages then), and the backend reads the
   * abilities before the device's first command (one more).
   */
  async toggle(uuid: string, channel: number): Promise<ChannelCommandResult> {
    const unknown = this.knownState(uuid, channel) === null;
    return this.command(uuid, channel, (unknown ? 2 : 1) + this.routes.abilitiesReadBefore(uuid), async () => {
      const current = this.knownState(uuid, channel) ?? (await this.readChannel(uuid, channel));
      return this.switchChannel(uuid, channel, !current);
    });
  }

  /** Switches a channel on or off (and the abilities first, as a toggle); sent even when the state already matches, since ours may be stale. */
  async set(uuid: string, channel: number, on: boolean): Promise<ChannelCommandResult> {
    return this.command(uuid, channel, 1 + this.routes.abilitiesReadBefore(uuid), () => this.switchChannel(uuid, channel, on));
  }

  /** Checks, admits the command (to the budget unless the device is on the LAN), then runs the work in the device's queue. */
  private command(uuid: string, channel: number, count: number, work: () => Promise<boolean>): Promise<ChannelCommandResult> {
    const device = assertKnownDevice(this.registry.get(uuid), uuid);
    assertChannelOf(device, channel);
    assertControllable(device, this.deps.families);
    const admission = this.routes.admit(uuid, count);
    return this.deps.queue.run(uuid, () =>
      this.routes.run(admission, uuid, async () => {
        // Earlier commands in the queue may have taken a while: the device may be gone or offline now.
        const current = assertKnownDevice(this.registry.get(uuid), uuid);
        assertControllable(current, this.deps.families);
        const on = await work();
        return { device: current.name, channel, on };
      }),
    );
  }

  private knownState(uuid: string, channel: number): boolean | null {
    return this.registry.get(uuid)?.channels.find((c) => c.channel === channel)?.on ?? null;
  }

  private async readChannel(uuid: string, channel: number): Promise<boolean> {
    const states = await this.readStates(uuid);
    const state = states.find((s) => s.channel === channel);
    if (!state) throw new AppError('CLOUD_ERROR', `Device ${uuid} did not report the state of channel ${channel}`);
    return state.on;
  }

  private async switchChannel(uuid: string, channel: number, on: boolean): Promise<boolean> {
    try {
      await this.callCloud(`switching device ${uuid}`, this.deps.commandTimeoutMs, () => this.cloud.setChannel(uuid, channel, on));
    } catch (err) {
      // Timed out: the device may or may not have switched, so its state is unknown until read again.
      if (err instanceof AppError && err.code === 'CLOUD_TIMEOUT') this.registry.forgetChannel(uuid, channel);
      throw err;
    }
    this.registry.setChannel(uuid, channel, on, 'command', this.nowIso());
    return on;
  }

  /** A background read is worth sending: the device takes commands and some channel state is unknown. */
  needsStateRead(uuid: string): boolean {
    const device = this.registry.get(uuid);
    return device !== undefined && this.registry.isControllable(device) && device.channels.some((c) => c.on === null);
  }

  /**
   * Reads the states with room already admitted, in the device's queue behind any caller's command; a command ahead
   * may have made it moot, and `wanted` says whether the read is still wanted once its turn comes.
   */
  readInBackground(uuid: string, admission: Admission, wanted: () => boolean): Promise<void> {
    return this.deps.queue.run(
      uuid,
      () =>
        this.routes.run(admission, uuid, async () => {
          if (wanted() && this.needsStateRead(uuid)) await this.readStates(uuid);
        }),
      'background',
    );
  }

  /** Reads every channel of the device and records what it reports. */
  private async readStates(uuid: string): Promise<Array<{ channel: number; on: boolean }>> {
    const states = await this.callCloud(`reading device ${uuid}`, this.deps.commandTimeoutMs, () => this.cloud.readChannels(uuid));
    const now = this.nowIso();
    for (const s of states) this.registry.setChannel(uuid, s.channel, s.on, 'read', now);
    return states;
  }

  private callCloud<T>(what: string, timeoutMs: number, work: () => Promise<T>): Promise<T> {
    return callCloud(work, { what, timeoutMs, status: () => this.cloud.status(), clock: this.deps.clock });
  }

  private nowIso(): string {
    return isoNow(this.deps.clock);
  }
}

/** Throws 'Device not controllable' / 'Check synchronization' (the spec's exact texts), with the reason as detail. */
function assertControllable(device: Device, families: readonly DomainFamily[]): void {
  const reason = describeUnreachable(device) ?? (device.switchable ? undefined : notASwitch(device, families));
  if (reason === undefined) return;
  const solution = device.switchable ? undefined : otherRoutes(device, families);
  throw new AppError('DEVICE_NOT_CONTROLLABLE', undefined, { details: [{ path: 'device', message: reason }], ...(solution ? { solution } : {}) });
}

/** What the device is, as the first of its families that says so tells it. */
function notASwitch(device: Device, families: readonly DomainFamily[]): string {
  const is = families.find((f) => f.refusal?.is !== undefined && device.capabilities.includes(f.capability))?.refusal?.is;
  return is === undefined ? 'the device does not support switching' : `the device is ${is}; it is never sent a switch command`;
}

/** The routes the device takes instead, from the first of its families that has them. */
function otherRoutes(device: Device, families: readonly DomainFamily[]): string | undefined {
  const family = families.find((f) => f.refusal?.instead !== undefined && device.capabilities.includes(f.capability));
  return family?.refusal?.instead?.(`/devices/${device.uuid}`);
}
