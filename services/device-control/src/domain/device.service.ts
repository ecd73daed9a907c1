import { AppError, type Logger } from '@homeops/common';
import { callCloud } from './cloud-call.js';
import { systemClock, type Clock } from './clock.js';
import { CommandBudget, type BudgetTicket } from './command-budget.js';
import type { CloudEvent, DeviceCloud } from './device-cloud.js';
import type { DeviceEvent, DeviceEventListener } from './device-events.js';
import { DeviceQueue } from './device-queue.js';
import { DeviceRegistry, type SyncResult } from './device-registry.js';
import { assertChannelOf, assertControllable, assertKnownDevice } from './device-rules.js';
import { toDeviceView, type DeviceView } from './device.js';
import { DeviceSync, type SyncStatus } from './device-sync.js';

/** Limits and timings of the device service (from config; tests pass small values). */
export interface DeviceServiceOptions {
  maxCommandsPerMinute: number;
  /** 0 turns the periodic sync off. */
  syncIntervalSeconds: number;
  requestTimeoutMs: number;
  commandTimeoutMs: number;
  /** After a sync, read unknown channel states while at least half of the command budget is left. */
  refreshStatesAfterSync?: boolean;
}

/** What a switch command did. */
export interface ChannelCommandResult {
  device: string;
  channel: number;
  on: boolean;
}

/** What /health reports about devices, sync and commands. */
export interface DeviceServiceHealth {
  sync: SyncStatus;
  devices: { total: number; online: number; controllable: number };
  commands: { limitPerMinute: number; usedLastMinute: number };
}

/** The device use-cases: list, switch, synchronize, and live state from cloud events. */
export class DeviceService {
  private readonly listeners = new Set<DeviceEventListener>();
  private readonly registry = new DeviceRegistry((event) => this.publish(event));
  private readonly queue = new DeviceQueue();
  private readonly budget: CommandBudget;
  private readonly syncer: DeviceSync;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly cloud: DeviceCloud,
    private readonly options: DeviceServiceOptions,
    private readonly logger: Logger,
    private readonly clock: Clock = systemClock,
  ) {
    this.budget = new CommandBudget(options.maxCommandsPerMinute, clock);
    this.syncer = new DeviceSync({
      cloud,
      registry: this.registry,
      clock,
      logger,
      intervalSeconds: options.syncIntervalSeconds,
      timeoutMs: options.requestTimeoutMs,
      publish: (event) => this.publish(event),
      afterSync: () => this.refreshUnknownStates(),
    });
  }

  /** Listens to the cloud, starts its session, runs the first sync and the periodic one; never fails for a down cloud. */
  async start(): Promise<void> {
    this.unsubscribe ??= this.cloud.onEvent((event) => this.applyCloudEvent(event));
    await this.cloud.start();
    await this.syncer.start();
  }

  /** Stops timers and listeners, then the cloud session. */
  async stop(): Promise<void> {
    this.syncer.stop();
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    await this.cloud.stop();
  }

  onEvent(listener: DeviceEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Changes whenever listDevices() would answer differently. */
  get revision(): number {
    return this.registry.revision;
  }

  listDevices(): DeviceView[] {
    return this.registry.list().map(toDeviceView);
  }

  getDevice(uuid: string): DeviceView {
    return toDeviceView(assertKnownDevice(this.registry.get(uuid), uuid));
  }

  /** Synchronizes the device list with the cloud now (concurrent calls share one run). */
  sync(): Promise<SyncResult> {
    return this.syncer.run();
  }

  /** Flips a channel; an unknown state is read from the device first. */
  toggleChannel(uuid: string, channel: number): Promise<ChannelCommandResult> {
    return this.command(uuid, channel, async () => {
      const known = this.registry.get(uuid)?.channels.find((c) => c.channel === channel)?.on ?? null;
      const current = known ?? (await this.readChannel(uuid, channel));
      return this.switchChannel(uuid, channel, !current);
    });
  }

  /** Switches a channel on or off; sent even when the state already matches, since ours may be stale. */
  setChannel(uuid: string, channel: number, on: boolean): Promise<ChannelCommandResult> {
    return this.command(uuid, channel, () => this.switchChannel(uuid, channel, on));
  }

  health(): DeviceServiceHealth {
    return {
      sync: this.syncer.status(),
      devices: this.registry.counts(),
      commands: { limitPerMinute: this.budget.limit, usedLastMinute: this.budget.used() },
    };
  }

  /** Checks, spends one command of the budget, then runs the work in the device's queue. */
  private command(uuid: string, channel: number, work: () => Promise<boolean>): Promise<ChannelCommandResult> {
    const device = assertKnownDevice(this.registry.get(uuid), uuid);
    assertChannelOf(device, channel);
    assertControllable(device);
    const ticket = this.budget.assertTake();
    return this.queue.run(uuid, async () => {
      // Earlier commands in the queue may have taken a while: the device may be gone or offline now.
      const current = assertKnownDevice(this.registry.get(uuid), uuid);
      assertControllable(current);
      const on = await this.spending(ticket, work);
      return { device: current.name, channel, on };
    });
  }

  /** A command that never reached the cloud (session down) gives its budget back. */
  private async spending<T>(ticket: BudgetTicket, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (err instanceof AppError && err.code === 'CLOUD_UNAVAILABLE') this.budget.refund(ticket);
      throw err;
    }
  }

  private async readChannel(uuid: string, channel: number): Promise<boolean> {
    const ticket = this.budget.assertTake();
    const states = await this.spending(ticket, () =>
      this.callCloud(`reading device ${uuid}`, this.options.commandTimeoutMs, () => this.cloud.readChannels(uuid)),
    );
    const now = this.nowIso();
    for (const s of states) this.registry.setChannel(uuid, s.channel, s.on, 'read', now);
    const state = states.find((s) => s.channel === channel);
    if (!state) throw new AppError('CLOUD_ERROR', `Device ${uuid} did not report the state of channel ${channel}`);
    return state.on;
  }

  private async switchChannel(uuid: string, channel: number, on: boolean): Promise<boolean> {
    try {
      await this.callCloud(`switching device ${uuid}`, this.options.commandTimeoutMs, () =>
        this.cloud.setChannel(uuid, channel, on),
      );
    } catch (err) {
      // Timed out: the device may or may not have switched, so its state is unknown until read again.
      if (err instanceof AppError && err.code === 'CLOUD_TIMEOUT') this.registry.forgetChannel(uuid, channel);
      throw err;
    }
    this.registry.setChannel(uuid, channel, on, 'command', this.nowIso());
    return on;
  }

  /** Reads unknown states in the background, keeping half of the budget for callers. */
  private refreshUnknownStates(): void {
    if (this.options.refreshStatesAfterSync === false) return;
    for (const device of this.listDevices()) {
      if (!device.controllable || device.channels.every((c) => c.on !== null)) continue;
      const ticket = this.budget.tryTake(Math.ceil(this.budget.limit / 2));
      if (!ticket) return;
      void this.queue
        .run(device.uuid, () => this.spending(ticket, () => this.readAll(device.uuid)))
        .catch((err: unknown) => this.logger.warn({ uuid: device.uuid, err }, 'could not read device state'));
    }
  }

  private async readAll(uuid: string): Promise<void> {
    const states = await this.callCloud(`reading device ${uuid}`, this.options.commandTimeoutMs, () =>
      this.cloud.readChannels(uuid),
    );
    const now = this.nowIso();
    for (const s of states) this.registry.setChannel(uuid, s.channel, s.on, 'read', now);
  }

  private applyCloudEvent(event: CloudEvent): void {
    const now = this.nowIso();
    switch (event.type) {
      case 'channel':
        this.registry.setChannel(event.uuid, event.channel, event.on, event.source, now);
        break;
      case 'online':
        this.registry.setOnline(event.uuid, event.online, now);
        break;
      case 'device':
        this.registry.update(event.device, now);
        break;
      case 'session':
        this.publish({ type: 'session', status: event.status });
        if (event.status.state === 'connected') this.syncer.onSessionUp();
        break;
    }
  }

  private callCloud<T>(what: string, timeoutMs: number, work: () => Promise<T>): Promise<T> {
    return callCloud(work, { what, timeoutMs, status: () => this.cloud.status(), now: () => this.clock.now() });
  }

  private publish(event: DeviceEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (err) {
        this.logger.error({ err }, 'device event listener failed');
      }
    }
  }

  private nowIso(): string {
    return new Date(this.clock.now()).toISOString();
  }
}
