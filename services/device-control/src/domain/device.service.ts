import { AppError, type Logger } from '@homeops/common';
import { BackgroundReads } from './background-reads.js';
import { ChannelCommands, type ChannelCommandResult } from './channel-commands.js';
import { systemClock, type Clock } from './clock.js';
import { retryAfterFrom } from './cloud-call.js';
import { CommandBudget } from './command-budget.js';
import type { CloudEvent, DeviceCloud } from './device-cloud.js';
import type { DeviceEvent, DeviceEventListener } from './device-events.js';
import { DeviceQueue } from './device-queue.js';
import { DeviceRegistry, type DeviceCounts, type SyncResult } from './device-registry.js';
import { assertKnownDevice } from './device-rules.js';
import { toDeviceView, type DeviceView } from './device.js';
import { DeviceSync, type SyncStatus } from './device-sync.js';

/** Limits and timings of the device service (from config; tests pass small values). */
export interface DeviceServiceOptions {
  maxCommandsPerMinute: number;
  /** 0 turns the periodic sync off. */
  syncIntervalSeconds: number;
  requestTimeoutMs: number;
  commandTimeoutMs: number;
  /** Read unknown channel states in the background (after a sync, when a device or its command channel comes back). */
  backgroundStateReads?: boolean;
  /** At most one background read per device in this many seconds (default 60). */
  backgroundReadIntervalSeconds?: number;
}

/** Re-exported for callers of the service. */
export type { ChannelCommandResult };

/** What /health reports about devices, sync and commands. */
export interface DeviceServiceHealth {
  sync: SyncStatus;
  devices: DeviceCounts;
  commands: { limitPerMinute: number; usedLastMinute: number };
}

/** The device use-cases: list, switch, synchronize, and live state from cloud events. */
export class DeviceService {
  private readonly listeners = new Set<DeviceEventListener>();
  private readonly registry = new DeviceRegistry((event) => this.publish(event));
  private readonly budget: CommandBudget;
  private readonly commands: ChannelCommands;
  private readonly syncer: DeviceSync;
  private readonly reads: BackgroundReads | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly cloud: DeviceCloud,
    options: DeviceServiceOptions,
    private readonly logger: Logger,
    private readonly clock: Clock = systemClock,
  ) {
    this.budget = new CommandBudget(options.maxCommandsPerMinute, clock);
    this.commands = new ChannelCommands({
      cloud,
      registry: this.registry,
      queue: new DeviceQueue(),
      budget: this.budget,
      clock,
      logger,
      commandTimeoutMs: options.commandTimeoutMs,
    });
    if (options.backgroundStateReads !== false) {
      this.reads = new BackgroundReads({
        budget: this.budget,
        clock,
        logger,
        minIntervalMs: (options.backgroundReadIntervalSeconds ?? 60) * 1000,
        needsRead: (uuid) => this.commands.needsStateRead(uuid),
        read: (uuid, ticket, wanted) => this.commands.readInBackground(uuid, ticket, wanted),
      });
    }
    this.syncer = new DeviceSync({
      cloud,
      registry: this.registry,
      clock,
      logger,
      intervalSeconds: options.syncIntervalSeconds,
      timeoutMs: options.requestTimeoutMs,
      publish: (event) => this.publish(event),
      afterSync: () => {
        this.reads?.prune();
        this.reads?.request(this.registry.list().map((d) => d.uuid));
      },
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
    this.reads?.stop();
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

  /** Every known device; 503 until the list was loaded from the cloud once (an empty answer would be a lie). */
  listDevices(): DeviceView[] {
    this.assertListLoaded();
    return this.registry.list().map(toDeviceView);
  }

  getDevice(uuid: string): DeviceView {
    this.assertListLoaded();
    return toDeviceView(assertKnownDevice(this.registry.get(uuid), uuid));
  }

  /** Synchronizes the device list with the cloud now (concurrent calls share one run). */
  sync(): Promise<SyncResult> {
    return this.syncer.run();
  }

  /** Flips a channel; an unknown state is read from the device first. */
  toggleChannel(uuid: string, channel: number): Promise<ChannelCommandResult> {
    this.assertListLoaded();
    return this.commands.toggle(uuid, channel);
  }

  /** Switches a channel on or off (idempotent). */
  setChannel(uuid: string, channel: number, on: boolean): Promise<ChannelCommandResult> {
    this.assertListLoaded();
    return this.commands.set(uuid, channel, on);
  }

  health(): DeviceServiceHealth {
    return {
      sync: this.syncer.status(),
      devices: this.registry.counts(),
      commands: { limitPerMinute: this.budget.limit, usedLastMinute: this.budget.used() },
    };
  }

  private assertListLoaded(): void {
    if (this.syncer.status().lastSuccessAt !== null) return;
    throw new AppError('CLOUD_UNAVAILABLE', 'The device list has not been loaded from the cloud yet', {
      solution: 'Retry after the time given in Retry-After; see /health for the cloud session',
      retryAfterSeconds: retryAfterFrom(this.cloud.status(), this.clock.now()),
    });
  }

  private applyCloudEvent(event: CloudEvent): void {
    const now = this.nowIso();
    switch (event.type) {
      case 'channel':
        this.registry.setChannel(event.uuid, event.channel, event.on, event.source, now);
        break;
      case 'online':
        this.registry.setOnline(event.uuid, event.online, now);
        if (event.online) this.reads?.request([event.uuid]);
        break;
      case 'device':
        // A command channel that came back missed pushes: the registry forgot the states, read them (bounded).
        this.registry.update(event.device, now);
        this.reads?.request([event.device.uuid]);
        break;
      case 'session':
        this.publish({ type: 'session', status: event.status });
        if (event.status.state === 'connected') this.syncer.onSessionUp();
        break;
    }
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
